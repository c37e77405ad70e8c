// The tile IR: one level from elaboration to the scheduled kernel.
//
// Nodes are immutable and shared (`std::shared_ptr<const ...>`), as in TVM and
// Halide: a pass that changes something rebuilds the path to it and shares the
// rest. Expressions are one uniform node (kind + operands) so generic
// traversals stay short; statements are typed nodes tagged with `StmtKind`.
//
// What elaboration guarantees (checked by the verifier, ir/Verifier.h):
//  - every buffer used is declared in `Kernel::buffers`, every var is bound
//    (loop var, block index, scalar parameter, dynamic size or an Assign);
//  - every tile op's regions have constant extents within the buffer's shape
//    when that shape is constant;
//  - copies carry the pipe of SPEC §1.5; on-chip buffer shapes are constants.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/DType.h"
#include "support/Diagnostics.h"
#include "target/Hardware.h"

namespace tilesched::ir {

using tilesched::MemScope;
using tilesched::Pipe;

// ---------------------------------------------------------------- variables

enum class VarKind { Loop, BlockIdx, Param, Dynamic, Local };

struct VarNode {
  int id;            // unique within a Program; orders vars deterministically
  std::string name;  // user-facing name (printing may add a suffix)
  DType dtype;
  VarKind kind;
  // A scalar the lowering keeps across iterations (a version counter, a
  // ring clock, an epoch's active flag). In the kernel language a name
  // re-bound in a loop body is a fresh let in every iteration, so such a
  // variable prints as a T.alloc_var, which reads back with this meaning.
  bool running = false;
  // The hidden boolean of a `T.assume(cond)` about values the kernel computes
  // (SPEC: a fact the compiler may use): its assignment is the check. Both
  // runs fail where it is assigned false; it prints as `T.assume(cond)`
  // and costs nothing (no instruction on the hardware).
  bool assumption = false;
};
using Var = std::shared_ptr<const VarNode>;

// ----------------------------------------------------------------- storages

// One allocation. Aliases made with T.view are several Buffers over one
// Storage; everything about versions is said of the Storage.
struct StorageNode {
  int id;
  std::string name;  // the allocating buffer's name
  MemScope scope;
  int64_t bytes;  // 0 for global tensors of dynamic size
  SourceLoc loc;
  // T.alloc_ub and T.alloc_shared both allocate in the UB; the printer keeps
  // the author's spelling so printed kernels read like the source.
  bool spelledAllocUb = false;
};
using Storage = std::shared_ptr<const StorageNode>;

struct ExprNode;
using Expr = std::shared_ptr<const ExprNode>;

struct BufferNode {
  int id;
  std::string name;
  Storage storage;
  DType dtype;
  std::vector<Expr> shape;  // constants for on-chip buffers
  SourceLoc loc;
  bool isAlias = false;  // made by T.view
  // T.StridedTensor (global tensors only): the stride of each dimension, in
  // elements; empty: dense row-major. Values never depend on them (they are
  // checked not to overlap, and the simulator keeps the tensor in logical
  // order, docs/simulator.md "Strided tensors"); copy costs do.
  std::vector<Expr> strides = {};
  // Set by materialisation: the first dimension is the version (of this
  // many), prepended to the shape the author wrote. Messages drop it.
  int64_t versionDim = 0;
  // Set with versionDim: bytes from one version to the next. Each version
  // starts at an address aligned for its scope (the DMA needs it), so this
  // may exceed the bytes of one version; 0 means dense (the shape's).
  int64_t versionStrideBytes = 0;
};
using Buffer = std::shared_ptr<const BufferNode>;

// -------------------------------------------------------------- expressions

enum class ExprKind {
  IntImm,    // intValue
  FloatImm,  // floatValue
  VarRef,    // var
  Binary,    // binOp, operands[0..1]
  Unary,     // unOp, operands[0]
  Select,    // operands: cond, then, else
  Cast,      // operands[0] converted to dtype
  Load,      // buffer[operands...]
};

enum class BinOp {
  Add,
  Sub,
  Mul,
  Div,  // true division (floats); on ints it is an error at elaboration
  FloorDiv,
  FloorMod,
  Min,
  Max,
  EQ,
  NE,
  LT,
  LE,
  GT,
  GE,
  And,
  Or,
  // Integer bitwise operations (Python's & | ^ << >>; >> is arithmetic on
  // signed types): operands and result of one integer dtype.
  BitAnd,
  BitOr,
  BitXor,
  Shl,
  Shr,
};

enum class UnOp { Neg, Not, Abs, Exp, Log, Sqrt, Rsqrt, Tanh, Sigmoid };

struct ExprNode {
  ExprKind kind;
  DType dtype;
  BinOp binOp = BinOp::Add;
  UnOp unOp = UnOp::Neg;
  int64_t intValue = 0;
  double floatValue = 0;
  Var var;
  Buffer buffer;
  std::vector<Expr> operands;
};

// ---------------------------------------------------------------- regions

// A box over a buffer: per dimension a start expression and a constant extent.
struct Range {
  Expr min;
  int64_t extent;
};
struct Region {
  Buffer buffer;
  std::vector<Range> ranges;
  int64_t numElements() const;
};

// ---------------------------------------------------------------- statements

enum class StmtKind {
  Seq,
  For,
  If,
  Assign,
  Store,
  Copy,
  Gemm,
  Fill,
  Reduce,
  Parallel,
  VFRegion,
  SetFlag,
  WaitFlag,
  Barrier,
};

struct StmtNode;
using Stmt = std::shared_ptr<const StmtNode>;

struct StmtNode {
  StmtKind kind;
  SourceLoc loc;
  // `with T.Stage(k):` in the source (SPEC §6.4): the stage of the enclosing
  // loop's modulo schedule this unit must start in; -1: the scheduler's
  // choice. Set on tasks and loops, never on an `if` (its statements carry it).
  int32_t manualStage = -1;
  explicit StmtNode(StmtKind k, SourceLoc l) : kind(k), loc(l) {}
  virtual ~StmtNode() = default;
};

struct SeqStmt : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Seq;
  std::vector<Stmt> stmts;
  SeqStmt(std::vector<Stmt> s, SourceLoc l = {}) : StmtNode(kKind, l), stmts(std::move(s)) {}
};

enum class ForKind { Serial, Unroll, Pipelined, Persistent };

struct ForStmt : StmtNode {
  static constexpr StmtKind kKind = StmtKind::For;
  Var var;
  Expr min;
  Expr extent;
  ForKind forKind = ForKind::Serial;
  int64_t numStages = 1;         // bound on versions of storages it owns
  bool enableOffset = false;     // SPEC §1.4 "enable_offset"
  std::vector<Buffer> eligible;  // explicit "multi_buffer_eligible" claims
  SourceLoc eligibleLoc;         // where the claim list is written
  Stmt body;
  ForStmt(SourceLoc l) : StmtNode(kKind, l) {}
  bool isPipelined() const {
    return forKind == ForKind::Pipelined || (forKind == ForKind::Persistent && numStages > 0);
  }
};

// The manual form of a mixed kernel (SPEC §9.1): `with T.Cube():` and
// `with T.Vector() as sid:` are `if`s over the kernel's core variable
// (Kernel::ManualCores), so every pass sees ordinary control flow; the
// printer writes them back as the `with` blocks.
enum class CoreScope : uint8_t { None, Cube, Vector };

struct IfStmt : StmtNode {
  static constexpr StmtKind kKind = StmtKind::If;
  Expr cond;
  Stmt thenBody;
  Stmt elseBody;                          // may be null
  CoreScope coreScope = CoreScope::None;  // Cube / Vector: a `with T.Cube()` / `T.Vector()` block
  IfStmt(Expr c, Stmt t, Stmt e, SourceLoc l)
      : StmtNode(kKind, l), cond(std::move(c)), thenBody(std::move(t)), elseBody(std::move(e)) {}
};

// Scalar assignment `x = expr` (declares x on its first assignment).
struct AssignStmt : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Assign;
  Var var;
  Expr value;
  AssignStmt(Var v, Expr e, SourceLoc l)
      : StmtNode(kKind, l), var(std::move(v)), value(std::move(e)) {}
};

// `buf[i, j] = expr` (zero indices for a T.alloc_var scalar).
enum class AtomicOp : uint8_t { None, Add, Max, Min };
const char* atomicOpName(AtomicOp op);  // "add", "max", "min" ("none")
// The binary operator an atomic update applies: dst = dst op value.
BinOp atomicBinOp(AtomicOp op);

struct StoreStmt : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Store;
  Buffer buffer;
  std::vector<Expr> indices;
  Expr value;
  // T.atomic_add/max/min(dst, v): value is `dst op v` and the read-modify-
  // write is one atomic access of global memory (blocks in block-id order).
  AtomicOp atomic = AtomicOp::None;
  // `prev = T.atomic_add(dst, v, return_prev=True)`: the atomic update also
  // sets this scalar to the element's value before it (inside VF regions only).
  Var prev;
  StoreStmt(Buffer b, std::vector<Expr> i, Expr v, SourceLoc l)
      : StmtNode(kKind, l), buffer(std::move(b)), indices(std::move(i)), value(std::move(v)) {}
};

// Keyword arguments that only tune hardware behaviour; recorded, printed.
using HwKwargs = std::vector<std::pair<std::string, std::string>>;

// `T.set_atomic(op, dtype)` ... `T.set_atomic_none()` around a store to
// global memory: the store reduces into the destination (GM op= value).

struct CopyStmt : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Copy;
  Region src;
  Region dst;
  Pipe pipe;
  HwKwargs kwargs;
  // `pad_value=`: when set, `src` may be smaller than `dst` (its significant
  // extents lined up from the right, each at most dst's); every element of
  // `dst` outside the source extents gets this value (dst's dtype).
  Expr padValue;
  // Set only on stores to global memory made while T.set_atomic was armed.
  AtomicOp atomic = AtomicOp::None;
  // `transpose=True` (global→L1): the 2-D source box is transposed,
  // dst[i, j] = src[j, i] (src extents (a, b), dst extents (b, a)).
  bool transpose = false;
  // `T.dual_copy(l0c, ub)` (SPEC §9.1): one FixPipe that writes half of the
  // L0C tile into the UB of each AIV of the group, `dst` naming the half
  // (the same region in every AIV's UB). Rows: AIV s gets source rows
  // [s*M/2, (s+1)*M/2); Cols: columns [s*N/2, (s+1)*N/2).
  enum class Dual : uint8_t { None, Rows, Cols };
  Dual dual = Dual::None;
  CopyStmt(Region s, Region d, Pipe p, SourceLoc l)
      : StmtNode(kKind, l), src(std::move(s)), dst(std::move(d)), pipe(p) {}
};

struct GemmStmt : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Gemm;
  Region a, b, c;
  bool transA = false, transB = false;
  Expr clearAccum;  // bool expression, usually a constant
  GemmStmt(SourceLoc l) : StmtNode(kKind, l) {}
  // With L1 operands the gemm also occupies MTE1 (SPEC §1.5).
  bool hasL1Operands() const;
};

struct FillStmt : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Fill;
  Region dst;
  Expr value;
  Pipe pipe;  // MTE2 for L1, else V
  FillStmt(Region d, Expr v, Pipe p, SourceLoc l)
      : StmtNode(kKind, l), dst(std::move(d)), value(std::move(v)), pipe(p) {}
};

enum class ReduceKind { Sum, Max, Min, AbsSum, AbsMax };

struct ReduceStmt : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Reduce;
  ReduceKind reduceKind;
  Region src;
  Region dst;
  int dim;  // normalised to [0, rank)
  bool clear;
  ReduceStmt(SourceLoc l) : StmtNode(kKind, l) {}
};

// `for i, j in T.Parallel(M, N): body` — one vector task.
struct ParallelStmt : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Parallel;
  std::vector<Var> vars;
  std::vector<int64_t> extents;
  Stmt body;
  ParallelStmt(SourceLoc l) : StmtNode(kKind, l) {}
};

// `with T.SimtVF(threads=K, latency=L):` / `with T.SimdVF(latency=L):`
struct VFRegionStmt : StmtNode {
  static constexpr StmtKind kKind = StmtKind::VFRegion;
  bool simt = false;
  int64_t threads = 0;
  std::optional<int64_t> latency;
  Stmt body;
  VFRegionStmt(SourceLoc l) : StmtNode(kKind, l) {}
};

// Intra-core flags name two pipes of one core. A cross-core flag
// (`T.ascend_cross_core_set_flag(mode, pipe, id)`, SPEC §9.2) has
// crossCoreMode >= 0 and src == dst == the pipe it is queued on; its id
// addresses the group's flag pool (the AIC adds 16·sid for AIV sid).
struct SetFlagStmt : StmtNode {
  static constexpr StmtKind kKind = StmtKind::SetFlag;
  Pipe src, dst;
  Expr eventId;
  int8_t crossCoreMode = -1;
  bool crossCore() const { return crossCoreMode >= 0; }
  SetFlagStmt(Pipe s, Pipe d, Expr id, SourceLoc l)
      : StmtNode(kKind, l), src(s), dst(d), eventId(std::move(id)) {}
};

struct WaitFlagStmt : StmtNode {
  static constexpr StmtKind kKind = StmtKind::WaitFlag;
  Pipe src, dst;
  Expr eventId;
  int8_t crossCoreMode = -1;  // as SetFlagStmt
  bool crossCore() const { return crossCoreMode >= 0; }
  WaitFlagStmt(Pipe s, Pipe d, Expr id, SourceLoc l)
      : StmtNode(kKind, l), src(s), dst(d), eventId(std::move(id)) {}
};

// pipe_barrier(X); `all` drains every pipe.
struct BarrierStmt : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Barrier;
  bool all = false;
  Pipe pipe = Pipe::S;
  BarrierStmt(bool a, Pipe p, SourceLoc l) : StmtNode(kKind, l), all(a), pipe(p) {}
};

template <class T>
const T* as(const Stmt& s) {
  return s && s->kind == T::kKind ? static_cast<const T*>(s.get()) : nullptr;
}

// ---------------------------------------------------------------- kernels

enum class VersionMode { Auto, Iteration, Counter };
std::string_view versionModeName(VersionMode m);

// One entry of T.annotate_buffer_versions.
struct VersionSpec {
  Storage storage;
  Buffer buffer;                    // as written by the author
  std::optional<int64_t> count;     // 1 = opt out unless `mode` is set too
  std::optional<VersionMode> mode;  // absent: automatic mode
  SourceLoc loc;
  bool isOptOut() const { return count == 1 && !mode; }
};

// One entry of T.annotate_manual_multi_buffer.
struct ManualSpec {
  Storage storage;
  Buffer buffer;
  int64_t ring;
  SourceLoc loc;
};

// A storage the lowering gave N > 1 versions (transform/Materialize.h): every
// access of one of its buffers names its version as `floormod(clock, N)` in
// its leading index, where `clock` counts the epochs of its owner loops. The
// simulator checks with it that every read sees bytes written in its own
// epoch (SPEC §2.4, stale versions).
struct VersionedStorage {
  Storage storage;  // the N-times-larger storage
  Buffer buffer;    // its allocating buffer, with the leading version dimension
  int64_t versions = 2;
  std::vector<std::pair<std::string, SourceLoc>> ownerLoops;  // loop variable, `for` line
};

struct KernelAnnotations {
  std::vector<VersionSpec> bufferVersions;
  SourceLoc bufferVersionsLoc;
  std::vector<ManualSpec> manual;
  std::vector<MemScope> unlimited;
  // Written back by AutoSchedule: selected versions per storage (SPEC §2.1).
  std::vector<std::pair<Storage, int64_t>> selectedVersions;
  // The mode a written-back entry keeps, so that pasting the map back means
  // what it did: the author's mode when one was asked for (through any
  // alias), "auto" for a count of 1 (a bare 1 would opt the storage out),
  // none for a count >= 2 in automatic mode.
  std::optional<VersionMode> writtenBackMode(const Storage& storage, int64_t count) const;
  // Set by materialisation; empty in source kernels.
  std::vector<VersionedStorage> versioned;
};

// How the file's own code makes a tensor it passes to the kernel
// (`torch.zeros(...)`, `torch.arange(n)`, `torch.randperm(n)[:k]` ...): `run`
// fills the parameter with the same kind of values when no --input gives it
// (docs/simulator.md, "Values"), so an index tensor is a permutation where
// the file's is one.
struct InputRecipe {
  enum class Kind { Zeros, Ones, Full, Arange, Randperm, Randint };
  Kind kind = Kind::Zeros;
  double value = 0;      // Full: the value; Arange: the start
  double step = 1;       // Arange
  int64_t low = 0;       // Randint: values in [low, high); Randperm: a permutation of
  int64_t high = 0;      // 0..high-1, its first elements
  std::string spelling;  // "torch.zeros", for messages
  SourceLoc madeAt;
};

struct KernelParam {
  std::string name;
  Buffer buffer;  // tensor parameter, or
  Var var;        // scalar parameter
  SourceLoc loc;
  std::optional<InputRecipe> fromFile;  // a tensor the file's own call makes
};

// `T.assume(cond)`: a fact the author states about the kernel's scalar
// parameters, T.dynamic sizes and block index. The simulator checks it at
// the start of every block (a false one is a run error at `loc`).
struct Assumption {
  Expr cond;
  SourceLoc loc;
};

struct Kernel {
  std::string name;     // prim_func name
  std::string factory;  // enclosing factory function, empty at module level
  SourceLoc loc;        // the `def` of the prim_func
  SourceLoc kernelLoc;  // the `with T.Kernel(...)`
  SourceLoc gridLoc;    // its grid argument
  int64_t grid = 1;
  Var blockIdx;
  std::vector<std::pair<std::string, std::string>> kernelKwargs;  // threads, is_npu, ...
  // The vector cores (AIVs) that run the vector tasks of a mixed kernel: 2
  // for `T.Kernel` (upstream runs them on both AIVs of the group), 1 for
  // `T.MixedKernel(n, sids=1) as (bx, sid)`, whose `sidName` (bound to 0) is kept
  // for printing.
  int vectorCores = 2;
  std::string sidName;
  // The manual form (`with T.Cube():` / `with T.Vector() as sid:`): each core
  // of the group runs the whole body with `core` bound to 0 on the AIC and to
  // 1 + s on AIV s, and `sid` to s (0 on the AIC). Absent: one program for
  // one core, as before.
  struct ManualCores {
    Var core, sid;
    int vectorCores = 2;  // T.Vector(vector=...)
    SourceLoc loc;        // the first `with T.Cube()` / `T.Vector()`
  };
  std::optional<ManualCores> manualCores;
  std::vector<KernelParam> params;
  std::vector<Var> dynamicVars;   // T.dynamic sizes
  std::vector<Storage> storages;  // declaration order
  std::vector<Buffer> buffers;    // declaration order (params first)
  Stmt body;
  KernelAnnotations annotations;
  bool hasSimtVF = false;
  // Launch order: the `with T.Kernel` blocks of one prim_func are consecutive
  // Kernels of a Program (`main`, `main_1`, ...) that run one after another
  // on shared global memory; launch `launch` starts once every block of
  // launch `launch - 1` has finished and sees its global-memory writes. Each
  // launch has its own grid, on-chip allocations and schedule.
  int launch = 0;
  int numLaunches = 1;
  std::vector<Assumption> assumptions;  // in source order
  // Set by the passes that lower the body to the program that runs
  // (insert-synchronization, lower-serial): its statements are placed, so the
  // T.Stage marks they still carry are history and are not printed.
  bool lowered = false;

  const Buffer* findBuffer(const std::string& name) const;
  // Factory (or prim_func) name, plus "launch i/n" when the prim_func has
  // several launches: how the CLI, the trace and the timeline name it.
  std::string displayName() const;
  // The prim_func's own name (`main` for the launch named `main_1`).
  std::string primFuncName() const;
};

struct Program {
  std::shared_ptr<const SourceFile> file;
  // The modules the file imports kernel code from: locations in them point here.
  std::vector<std::shared_ptr<const SourceFile>> importedFiles;
  std::vector<Kernel> kernels;
};

}  // namespace tilesched::ir
