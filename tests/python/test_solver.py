"""tilesched.schedule_loop / schedule_straight_line with TileLang's keyword
arguments: the same answers as `tilesched compile` on every problem the
bundled kernels dump, checked again here in Python; bad arguments raise
ValueError naming the field; a problem without a schedule raises."""

import threading

import pytest

import tilesched


def upstream_kwargs(dump):
    """A dumped problem as the keyword arguments TileLang passes, plus the two
    fields only tilesched's dumps have (version bounds, same-stage groups)."""
    kwargs = dict(
        latencies=dump["latencies"],
        iis=dump["iis"],
        resource_flags=dump["resource_flags"],
        resource_deps=dump["resource_deps"],
        owner_exclusion_deps=dump["owner_exclusion_deps"],
    )
    if not dump["is_loop"]:
        # Upstream's straight-line edges are (i, j, latency), same iteration only.
        kwargs["data_deps"] = [(i, j, lat) for i, j, dist, lat in dump["data_deps"] if dist == 0]
        return kwargs
    kwargs.update(
        num_stages=dump["num_stages"],
        data_deps=dump["data_deps"],
        buffer_sizes=dump["storage_sizes"],
        memory_groups=dump["memory_groups"],
        enable_offset=dump["enable_offset"],
        version_bounds=dump["version_bounds"],
        same_stage=dump["same_stage"],
    )
    return kwargs


def violations(kwargs, start, versions, ii, is_loop):
    """The constraints of docs/solver-interface.md, restated once more."""
    out = []
    for x, dep in enumerate(kwargs["data_deps"]):
        if is_loop:
            i, j, dist, lat = dep
            d = versions[-dist - 1] if dist < 0 else dist
            if start[j] - start[i] < lat - ii * d:
                out.append(f"data_deps[{x}]")
        else:
            i, j, lat = dep
            if start[j] - start[i] < lat:
                out.append(f"data_deps[{x}]")
    flags, iis = kwargs["resource_flags"], kwargs["iis"]
    for a in range(len(flags)):
        for b in range(a + 1, len(flags)):
            if not flags[a] & flags[b]:
                continue
            if is_loop:
                gap = (start[b] - start[a]) % ii
                if gap < iis[a] or ii - gap < iis[b]:
                    out.append(f"pipe {a} {b}")
            elif start[a] < start[b] + iis[b] and start[b] < start[a] + iis[a]:
                out.append(f"pipe {a} {b}")
    if is_loop:
        sizes = kwargs["buffer_sizes"]
        for g, (capacity, *members) in enumerate(kwargs["memory_groups"]):
            if sum(versions[k] * sizes[k] for k in members) > capacity:
                out.append(f"memory_groups[{g}]")
    return out


def test_every_dumped_problem_answers_as_compile_does(dumped_problems):
    loops = 0
    for name, dump in dumped_problems:
        kwargs = upstream_kwargs(dump)
        if dump["is_loop"]:
            loops += 1
            start, versions, ii = tilesched.schedule_loop(**kwargs)
            assert ii == dump["ii"], name
            assert versions == dump["modulo_versions"], name
        else:
            start, order = tilesched.schedule_straight_line(**kwargs)
            ii, versions = max(s + max(l, i) for s, l, i in zip(start, dump["latencies"], dump["iis"])), []
            assert sorted(order) == list(range(len(start))), name
            assert [start[k] for k in order] == sorted(start), name
        assert violations(kwargs, start, versions, ii, dump["is_loop"]) == [], name
    assert loops > 50


def test_solve_reports_the_checker_and_the_proof(dumped_problems):
    name, dump = next((n, d) for n, d in dumped_problems if d["is_loop"] and d["proven_optimal"])
    result = tilesched.solve(upstream_kwargs(dump))
    assert result["tilesched"]["checker"] == "accepted"
    assert result["tilesched"]["proven_optimal"] is True
    assert result["tilesched"]["ii_lower_bound"] == dump["ii_lower_bound"]


LOOP = dict(num_stages=2, latencies=[10, 10], iis=[4, 6], resource_flags=[2, 16],
            data_deps=[[0, 1, 0, 10], [1, 0, -1, 10]], resource_deps=[], buffer_sizes=[100],
            memory_groups=[[200, 0]])


def test_a_closed_form_loop_and_the_ffi_positional_order():
    # Two versions halve the cycle of latency 20: II 10; one version: II 20.
    assert tilesched.schedule_loop(**LOOP)[1:] == ([2], 10)
    assert tilesched.schedule_loop(**dict(LOOP, memory_groups=[[199, 0]]))[1:] == ([1], 20)
    positional = [LOOP["num_stages"], LOOP["latencies"], LOOP["iis"], LOOP["resource_flags"],
                  LOOP["data_deps"], LOOP["resource_deps"], None, None, LOOP["buffer_sizes"],
                  LOOP["memory_groups"]]
    assert tilesched.schedule_loop(*positional)[2] == 10


def test_containers_that_are_not_lists():
    # TVM arrays and numpy integers reach the solver as sequences of integers.
    class Array:
        def __init__(self, items):
            self.items = list(items)

        def __len__(self):
            return len(self.items)

        def __iter__(self):
            return iter(self.items)

    kwargs = {k: Array(Array(x) if isinstance(x, list) else x for x in v) if isinstance(v, list) else v
              for k, v in LOOP.items()}
    assert tilesched.schedule_loop(**kwargs)[2] == 10


@pytest.mark.parametrize("change, field", [
    ({"iis": None}, "iis: missing"),
    ({"latencies": "10, 10"}, "latencies: must be a list of integers"),
    ({"latencies": [10, 2.5]}, "latencies[1]: must be an integer"),
    ({"data_deps": [[0, 1, 0, -3]]}, "data_deps[0][3]: latency -3 is negative"),
    ({"latencies": [-1, 10]}, "latencies[0]: -1 is negative"),
    ({"data_deps": [[0, 9, 0, 3]]}, "data_deps[0][1]: task 9 does not exist (2 tasks)"),
    ({"latencies": [], "iis": [], "resource_flags": []}, "latencies: the task list is empty"),
    ({"num_stages": -1}, "num_stages: must be 0 or more"),
    ({"memory_groups": [[200, 5]]}, "memory_groups[0][1]: buffer 5 does not exist"),
    ({"enable_offset": "yes"}, "enable_offset: must be True or False"),
    ({"latency": [1, 2]}, "latency: unknown field"),
    ({"data_deps": [[0, 1, 0, object()]]}, "data_deps[0][3]: object is not a number"),
])
def test_bad_arguments_raise_value_error_naming_the_field(change, field):
    kwargs = dict(LOOP)
    for key, value in change.items():
        if value is None:
            kwargs.pop(key)
        else:
            kwargs[key] = value
    with pytest.raises(ValueError) as error:
        tilesched.schedule_loop(**kwargs)
    assert str(error.value).startswith(field)


def test_a_problem_without_a_schedule_raises():
    with pytest.raises(tilesched.ScheduleError) as error:
        tilesched.schedule_loop(**dict(LOOP, memory_groups=[[99, 0]]))
    assert "memory_groups[0] has capacity 99 bytes" in str(error.value)
    assert isinstance(error.value, RuntimeError)
    with pytest.raises(tilesched.ScheduleError, match="cycle with a positive total latency"):
        tilesched.schedule_straight_line(latencies=[1, 1], iis=[1, 1], resource_flags=[2, 16],
                                         data_deps=[(0, 1, 1), (1, 0, 1)], resource_deps=[])


def test_solves_from_several_threads_agree():
    # The GIL is released while solving: concurrent calls must not share state.
    results = [None] * 8

    def work(k):
        results[k] = tilesched.schedule_loop(**dict(LOOP, memory_groups=[[200 if k % 2 else 199, 0]]))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(len(results))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [r[2] for r in results] == [20, 10] * 4
