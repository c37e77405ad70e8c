// Internal: the elaborator's state, shared by Elaborator.cpp (module,
// factories, expressions, statements) and TileOps.cpp (T.copy, T.gemm,
// reductions, annotations). Not part of the front end's interface.
#pragma once

#include <algorithm>
#include <functional>
#include <limits>
#include <set>

#include "frontend/ConstEval.h"
#include "frontend/Elaborator.h"
#include "frontend/ScalarBindings.h"
#include "frontend/Value.h"
#include "ir/IROperator.h"

namespace tilesched::frontend {

// The largest buffer or region, in elements, the front end accepts (byte
// counts stay far from int64 overflow).
inline constexpr int64_t kMaxElements = int64_t(1) << 40;

// Where statements being elaborated go, and what they may contain.
struct BlockCtx {
  std::vector<ir::Stmt>* out = nullptr;
  bool inParallel = false;  // element-wise body of T.Parallel
  bool inVF = false;        // T.SimtVF / T.SimdVF region
  bool inSimt = false;      // T.SimtVF region (its threads access memory element by element)
  // The T.SimtVF region whose body this is (its thread indices, SimtThreads.cpp).
  struct SimtThreads* threads = nullptr;
  // Inside `with T.Stage(k):` (ManualStages.cpp): k, and where it is written.
  int64_t stage = -1;
  SourceLoc stageLoc;
  // Inside `with T.Cube():` / `with T.Vector():` (ManualCores.cpp).
  ir::CoreScope coreScope = ir::CoreScope::None;
};

// The threads of a T.SimtVF region and the index variables
// T.get_thread_binding(dim) made for them (dims x, y, z).
struct SimtThreads {
  std::vector<int64_t> dims;
  std::vector<ir::Var> vars;             // one per dim once any binding is asked for
  std::vector<ir::Stmt>* top = nullptr;  // the region body's own statement list
};

// A kernel body that scopes the names bound in it, as TVMScript's parser does
// for every loop body, branch and `with` body: a plain assignment is a new let
// that lives to the end of the enclosing body, so when the body ends every
// name it bound or re-bound has its value from before again.
struct NameScope {
  Env* env = nullptr;                      // whose names the scope restores
  std::map<std::string, Value> saved;      // env->names at entry
  std::set<std::string> readBeforeRebind;  // (loops) names read while bound to the entry value
  std::map<std::string, SourceLoc> firstRebind;  // where the body first re-bound a name
  std::string what;                              // "loop", "branch", "T.SimdVF region"
  SourceLoc loc;
  bool loop = false;
};

// A scope's note for a name, applied once the whole statement (both branches
// of an `if`) is elaborated, so the else branch does not see the then branch's.
struct PendingScopeNote {
  std::string name;
  uint64_t serial = 0;  // the restored binding the note belongs to
  ScopeNote note;
};

struct ReturnSignal {
  Value value;
};

// A torch tensor the file's own code makes with a compile-time shape
// (`a = torch.randn((64,), dtype=torch.float16)`), passed to a kernel.
struct TorchTensor {
  std::vector<int64_t> shape;
  SourceLoc madeAt;                       // the torch.* call
  std::optional<ir::InputRecipe> recipe;  // the values' kind, when `run` can make the same
};

// One argument of the call of a kernel object (`kernel(None, a)`).
struct KernelCallArg {
  bool isNone = false;
  std::optional<TorchTensor> tensor;  // a tensor with a compile-time shape
  std::string spelling;               // `a` for a name, else empty
  SourceLoc loc;
};

// The first call of the kernel object a factory call made, in the function
// that made it: `factory(8)(a, b)`, `k = factory(8); k(a, b)`,
// `kernel = tilelang.compile(factory(8)); kernel(a, b)`.
struct KernelObjectCall {
  SourceLoc loc;
  std::vector<KernelCallArg> positional;
  std::vector<std::pair<std::string, KernelCallArg>> keywords;
};

// A call of a factory found in the file's own code (`func = vec_add(1024, 512)`),
// with the parameter values its compile-time arguments give.
struct FactoryCall {
  SourceLoc loc;
  std::vector<std::pair<std::string, Value>> values;  // parameter order
  // The @pytest.mark.parametrize sets the enclosing test function ran with.
  std::vector<std::pair<SourceLoc, std::string>> notes;
  const py::Expr* expr = nullptr;  // the factory call itself
  std::optional<KernelObjectCall> kernelCall;
  // While the scan follows the factory call's result through the rest of its
  // function: the names bound to the kernel object.
  bool followingKernel = false;
  std::set<std::string> kernelNames;
};

// A module next to the compiled file that the file imports (`from lib import f`,
// `import lib`): parsed once, its top level evaluated in its own environment by
// the same rules as the compiled file's (definitions and constants only).
struct ImportedModule {
  std::string name;
  std::shared_ptr<const SourceFile> file;
  py::Module ast;
  std::shared_ptr<Env> env;
  bool loading = true;  // its top level is still being evaluated (an import cycle)
};

// An import tilesched cannot follow (no such file next to the compiled one, a
// package-relative or other-folder module): an error at the import when the
// file has no kernel and reads one of the names it binds.
struct UnreadableImport {
  SourceLoc loc;
  std::vector<std::string> bound;
  std::string message;
};

// One parameter set of a test function's `@pytest.mark.parametrize`
// decorators (one entry per decorator, pytest's order).
struct ParamSet {
  std::vector<std::pair<std::string, Value>> values;
  std::vector<std::pair<SourceLoc, std::string>> picks;  // per decorator: which set, for a note
};

// The lanes a T.simd mask selects for an operation on elements of one width:
// a prefix [0, count) (pset, update_mask), or the lanes a predicate register
// (vcmp, vcmps) holds true, one uint8 per element of its own width.
struct SimdLanes {
  int64_t lanes = 0;  // of the operation's element width
  ir::Expr count;     // prefix; null for a predicate register
  ir::Buffer predicate;
  int64_t opBits = 32, predicateBits = 32;
  // Every lane (a constant prefix of all of them).
  bool all() const;
  // Whether lane `l` is active; null when every lane is.
  ir::Expr at(const ir::Expr& l) const;
};

struct SimdCall;  // SimdOps.cpp
struct SimdReg;   // SimdOps.cpp

class Elaborator {
 public:
  Elaborator(std::shared_ptr<const SourceFile> file, const FrontendOptions& options,
             DiagnosticEngine& diags)
      : file_(std::move(file)), options_(options), diags_(diags) {}

  std::optional<ir::Program> run();

  // ---- expressions (Elaborator.cpp)
  Value eval(const py::Expr& e, Env& env);
  Value evalCall(const py::Expr& call, Env& env);
  Value callDictMethod(const Value& dict, const std::string& method, const py::Expr& call,
                       Env& env);
  Value callDialect(const std::string& name, const py::Expr& call, Env& env);
  // Parts of callDialect.
  void checkDialectArity(const std::string& name, const py::Expr& call, const std::vector<Value>& a,
                         size_t n);
  Value dialectClamp(const py::Expr& call, Env& env);
  Value dialectLimit(const std::string& name, const py::Expr& call, Env& env);
  Value dialectDynamic(const py::Expr& call, Env& env);
  Value dialectTensor(const std::string& name, const py::Expr& call, Env& env);
  Value dialectStridedTensor(const py::Expr& call, Env& env);
  Value dialectTruncated(const std::string& name, const py::Expr& call, Env& env);
  Value evalDictDisplay(const py::Expr& e, Env& env);
  // A tensor parameter's shape (integers, constants positive) and, for
  // T.StridedTensor, its strides (one per dimension; known ones must not overlap).
  std::vector<ir::Expr> tensorDims(const Value& v, SourceLoc loc, const char* what);
  std::vector<ir::Expr> tensorStrides(const Value& v, const std::vector<ir::Expr>& shape,
                                      SourceLoc loc);
  Value callBuiltin(const std::string& name, const py::Expr& call, Env& env);
  Value callFunction(const Value& fn, const py::Expr& call, Env& env);
  Value runFunctionBody(const Value& fn, Env& local);
  // @dataclass classes in factory code (Dataclasses.cpp).
  static bool isDataclass(const py::Stmt& classDef);
  // A dataclass object whose fields are all constants (a factory argument).
  static bool isConstantDataclassObject(const Value& v);
  Value dataclassClass(const py::Stmt& classDef, std::shared_ptr<Env> env);
  Value constructDataclass(const Value& cls, const py::Expr& call, Env& env);
  std::optional<Value> dataclassAttribute(const Value& obj, const std::string& id, SourceLoc loc);
  // Host helpers with constant arguments (`tilelang.next_power_of_2`, `tilelang.cdiv`,
  // `math.ceil`, `math.log2`, ...): their Python result; nullopt for anything else.
  std::optional<Value> hostHelper(const std::string& name, const py::Expr& call, Env& env);
  Value subscript(const Value& base, const py::Expr& index, Env& env, SourceLoc loc);
  Value sliceConstant(const Value& base, const py::Expr& slice, Env& env);
  std::pair<ir::Expr, ir::Expr> unifyOperands(const Value& a, SourceLoc aLoc, const Value& b,
                                              SourceLoc bLoc);
  Value binaryOp(const std::string& op, const Value& a, const Value& b, SourceLoc loc);
  ir::Expr toExpr(const Value& v, SourceLoc loc, std::optional<ir::DType> hint = std::nullopt);
  int64_t toConstInt(const Value& v, SourceLoc loc, const std::string& what);
  ir::DType toDType(const Value& v, SourceLoc loc);
  std::vector<int64_t> toConstShape(const Value& v, SourceLoc loc, const std::string& what);
  std::vector<Value> positional(const py::Expr& call, Env& env);
  const py::Keyword* keyword(const py::Expr& call, const std::string& name);
  bool transposeRequested(const py::Expr& call, Env& env);
  void narrowToTopLeftCorner(const ir::Region& src, ir::Region& dst, bool transposed);
  void checkKeywords(const py::Expr& call, const std::string& fn,
                     std::initializer_list<const char*> allowed);
  // Where positional argument `i` of a call is written; the call itself when
  // a `*` argument makes the position unknown.
  static SourceLoc argLoc(const py::Expr& call, size_t i);
  // A value as a message shows it: `3`, `'fast'`, `buffer 'a'`, `a run-time value`.
  static std::string describe(const Value& v);
  // A recorded hardware keyword argument (T.Kernel, T.copy) as printable Python.
  static std::string kwargText(const Value& v);
  [[noreturn]] void fail(SourceLoc loc, std::string msg) { throw EvalError{loc, std::move(msg)}; }

  // ---- module and factories (Elaborator.cpp)
  void runModule(const py::Module& m);
  void execDefinitions(const py::StmtList& body, Env& env, bool isFactory);
  void bindImport(const py::Stmt& s, Env& env);
  // The module M.py next to the compiled file, loaded on first use; null when
  // there is no such file (`why` says so) or it is not a plain module name.
  ImportedModule* loadModule(const std::string& name, SourceLoc at, std::string& why);
  std::shared_ptr<Env> newModuleEnv(const std::string& moduleName);
  // Imported factories and prim_funcs that are compiled with the file's own.
  void compileImported(const py::Module& m);
  // A file without module-level kernels whose test functions define some
  // (codegen tests): the first of those tests is compiled, with a warning.
  void compileTestDefinedKernel(const py::Module& m);
  void checkUnrollKeywords(const py::Expr& iter, const std::string& what, Env& env);
  // Does every parameter of `def` get a value (a default, -D, or the file's call)?
  bool hasParameterValues(const py::Stmt& def);
  // The message for "no kernel": an unreadable import whose names the file reads.
  bool reportUnreadableImport();
  // A test function's @pytest.mark.parametrize parameter sets, in pytest's order.
  std::vector<ParamSet> parametrizeSets(const py::Stmt& def, Env& env);
  // Binds the missing parameters of a test function run as a factory from
  // its own first complete @pytest.mark.parametrize set (clears `missing`).
  void bindOwnParameterSet(const py::Stmt& def, Env& parent, Env& env,
                           std::vector<const py::Param*>& missing);
  // The function a call's callee names (`f`, `lib.f`), or null.
  const Value* calleeFunction(const py::Expr& callee, Env& env);
  std::string raiseMessage(const py::Stmt& s, Env& env);
  void bindFunction(const py::Stmt& s, const std::shared_ptr<Env>& env);
  // `x = e` / `x += e` in host code: its value, or undefined carrying the
  // reason when it cannot be evaluated at compile time.
  Value evalAssignedValue(const py::Stmt& s, Env& env);
  // Binds every target of an assignment (a target that cannot take `v` is
  // bound to the reason).
  void bindAssignTargets(const py::Stmt& s, const Value& v, Env& env);
  void assignTargets(const py::Expr& target, const Value& v, Env& env, SourceLoc loc);
  // Binds the names of `target` not bound yet to the kFailedBinding marker.
  void markFailedNames(const py::Expr& target, Env& env);
  // The file's module-level factories and prim_funcs ("gemm (factory)"), for
  // the message of a --func that names none of them.
  std::vector<std::string> kernelNames_;
  void reportFailedStatement(const EvalError& e, const py::Stmt& s, Env& env);
  bool isPrimFunc(const py::Stmt& def);
  bool isMacro(const py::Stmt& def);
  bool defines(const py::StmtList& body);
  // defines(), also looking inside nested non-kernel defs (`@tilelang.jit def inner(...)`).
  bool definesDeep(const py::StmtList& body);
  // Does this body define, at any depth, a function named `name`?
  bool definesNamed(const py::StmtList& body, const std::string& name);
  // pytest tests, functions taking fixtures or decorated by pytest: never run as factories.
  bool isTestFunction(const py::Stmt& def);
  // Runs one factory and builds its kernels. `call`/`callEnv`: the enclosing factory's
  // `return inner(...)` for a nested factory, else null.
  void runFactory(const py::Stmt& def, const std::shared_ptr<Env>& parent,
                  const std::string& factoryName, bool wanted, const py::Expr* call, Env* callEnv);
  // The first call of `factory` in the file whose arguments are compile-time constants.
  std::optional<FactoryCall> findFactoryCall(const py::Stmt& factory);
  void scanForCall(const py::StmtList& body, Env& env, const py::Stmt& factory,
                   std::optional<FactoryCall>& found, std::set<const py::Stmt*>& visited, int depth,
                   bool moduleLevel);
  void scanExprForCall(const py::Expr& e, Env& env, const py::Stmt& factory,
                       std::optional<FactoryCall>& found, std::set<const py::Stmt*>& visited,
                       int depth);
  // ---- T.dynamic sizes from the tensors of the file's own kernel call (DynamicFromCall.cpp)
  // A torch tensor an expression makes or names: nullopt when it is none;
  // Undefined when it is one whose shape is not a compile-time constant.
  std::optional<Value> torchTensor(const py::Expr& e, Env& env);
  std::optional<Value> helperTensor(const Value& fn, const py::Expr& call, Env& env);
  std::optional<Value> torchPrefix(const py::Expr& subscript, Env& env);
  std::optional<Value> torchValues(const std::string& callee, const py::Expr& call, Env& env,
                                   std::optional<ir::InputRecipe>& recipe);
  // evalAssignedValue, with torch tensors of compile-time shape as values.
  Value scanAssignedValue(const py::Stmt& s, Env& env);
  // Follows the factory call's result from statement `from` of `body` (the one
  // holding the call when `fromHoldsCall`) to the first call of the kernel object.
  void followKernelObject(const py::StmtList& body, size_t from, Env& env, FactoryCall& fc,
                          bool fromHoldsCall);
  bool findKernelObjectCall(const py::Expr& e, Env& env, FactoryCall& fc);
  // The T.dynamic sizes of the kernel `def` makes that the tensors of its own
  // call give (those without -D); a note says where from. nullopt after an
  // error (two tensors disagree).
  // `fc`: the file's call of `def` when already looked for (else looked for here).
  std::optional<std::map<std::string, int64_t>> dynamicSizesFromCall(
      const py::Stmt& def, const std::shared_ptr<Env>& factoryEnv, std::optional<FactoryCall>& fc);
  // Binds a call's arguments to a def's parameters; nullopt when one is not a constant.
  std::optional<std::vector<std::pair<std::string, Value>>> constantArguments(const py::Stmt& def,
                                                                              const py::Expr& call,
                                                                              Env& env);

  // ---- kernels and statements (Elaborator.cpp)
  void buildPrimFunc(const py::Stmt& def, const std::shared_ptr<Env>& closure,
                     const std::string& factory);
  void mixedKernelLaunch(const py::Expr& call, const py::WithItem& item, Env& env, ir::Kernel& k);
  void buildKernel(const py::Stmt& withStmt, const py::Stmt& def, Env& env,
                   const std::string& factory, std::vector<ir::KernelParam> params,
                   std::vector<ir::Buffer> paramBuffers);
  void elabBlock(const py::StmtList& body, Env& env, BlockCtx& ctx);
  // elabBlock in a NameScope; `what` names the scope in messages.
  // With `deferred`, the scope notes are appended there for the caller to apply.
  void elabScopedBlock(const py::StmtList& body, Env& env, BlockCtx& ctx, const std::string& what,
                       SourceLoc loc, bool loop, std::vector<PendingScopeNote>* deferred = nullptr);
  std::vector<PendingScopeNote> closeScope(NameScope& scope);
  void applyScopeNotes(Env& env, const std::vector<PendingScopeNote>& notes);
  // A kernel read of a name: scope warnings and errors, loop-carried tracking.
  void noteNameRead(const py::Expr& name, Env& env);
  void elabStmt(const py::Stmt& s, Env& env, BlockCtx& ctx);
  void elabAssign(const py::Stmt& s, Env& env, BlockCtx& ctx);
  void elabFor(const py::Stmt& s, Env& env, BlockCtx& ctx);
  void elabWhile(const py::Stmt& s, Env& env, BlockCtx& ctx);  // WhileLoops.cpp
  // SimtThreads.cpp: T.get_thread_binding and the per-thread statements of a region.
  Value threadBinding(const py::Expr& call, Env& env);
  void wrapPerThread(BlockCtx& ctx, size_t firstNew, SourceLoc loc);
  void checkThreadUses(const SimtThreads& t, const ir::Stmt& body, SourceLoc loc);
  bool bindPerThread(const std::string& name, const Value& v, Env& env, const BlockCtx& ctx,
                     SourceLoc loc);
  void unrollSequence(const py::Stmt& s, Env& env, BlockCtx& ctx);
  void elabParallelFor(const py::Stmt& s, Env& env, BlockCtx& ctx);
  // The with statement from its `item`-th item on (`with A, B:` is `with A: with B:`).
  void elabWith(const py::Stmt& s, Env& env, BlockCtx& ctx, size_t item = 0);
  void elabStage(const py::Stmt& s, size_t item, Env& env, BlockCtx& ctx);  // ManualStages.cpp
  void elabVFRegion(const py::Expr& call, const std::string& name, const py::StmtList& body,
                    SourceLoc loc, Env& env, BlockCtx& ctx);
  void elabIf(const py::Stmt& s, Env& env, BlockCtx& ctx);
  // ---- the manual form of mixed kernels (ManualCores.cpp)
  void elabCoreScope(const py::Expr& call, const std::string& name, const py::WithItem& item,
                     const py::Stmt& s, Env& env, BlockCtx& ctx);
  void elabCrossCoreFlag(const std::string& name, const py::Expr& call, Env& env, BlockCtx& ctx);
  void elabDualCopy(const py::Expr& call, Env& env, BlockCtx& ctx);
  // After the body: tile work outside every core block is an error.
  void checkManualCores(const ir::Kernel& k);
  bool vectorBlockSeen_ = false;  // a T.Vector block of the kernel being built
  void elabExprStmt(const py::Stmt& s, Env& env, BlockCtx& ctx);
  void storeTo(const Value& target, const Value& value, SourceLoc loc, BlockCtx& ctx);
  // `loc`: the value (for errors and the IR); `nameLoc`: the name being bound.
  void assignScalar(const std::string& name, const Value& v, Env& env, BlockCtx& ctx, SourceLoc loc,
                    SourceLoc nameLoc);
  // Inlines the macro's statements into ctx; its `return value`, else None.
  Value inlineMacro(const Value& fn, const py::Expr& call, Env& env, BlockCtx& ctx);
  void loopAnnotations(const py::Expr& call, Env& env, ir::ForStmt& loop);
  Value allocate(const std::string& fn, const py::Expr& call, Env& env, const std::string& name);
  ir::Buffer makeBuffer(const std::string& name, ir::MemScope scope, ir::DType dtype,
                        std::vector<ir::Expr> shape, SourceLoc loc, ir::Storage storage = nullptr,
                        bool spelledAllocUb = false);
  // The kernel's dynamic size variable `name` (made on first use).
  Value dynamicSize(const std::string& name);
  // A value read in a kernel with factory-made T.dynamic sizes (also inside tuples) resolved.
  Value resolveDynamic(const Value& v);
  ir::Var makeVar(const std::string& name, ir::DType t, ir::VarKind kind);
  std::string uniqueBufferName(const std::string& name);

  // ---- tile operations and annotations (TileOps.cpp)
  bool elabTileOp(const std::string& name, const py::Expr& call, Env& env, BlockCtx& ctx);
  ir::Region toRegion(const Value& v, SourceLoc loc, const std::string& what,
                      bool copyTail = false);
  void elabCopy(const py::Expr& call, Env& env, BlockCtx& ctx);
  ir::Region copyRegionFromHead(const Value& head, const ir::Region& other, SourceLoc loc);
  void elabGemm(const py::Expr& call, Env& env, BlockCtx& ctx);
  void elabFill(const py::Expr& call, Env& env, BlockCtx& ctx, bool clear);
  void elabReduce(ir::ReduceKind kind, const std::string& fn, const py::Expr& call, Env& env,
                  BlockCtx& ctx);
  void elabFlag(const std::string& name, const py::Expr& call, Env& env, BlockCtx& ctx);
  void elabAscendFlag(const std::string& name, const py::Expr& call, Env& env, BlockCtx& ctx);
  void elabBufferLock(const std::string& name, const py::Expr& call, Env& env, BlockCtx& ctx);
  // T.set_atomic(op="add", dtype="float32") / T.set_atomic_none(): arms or
  // clears the atomic store mode that later T.copy stores to global memory get.
  void elabSetAtomic(const std::string& name, const py::Expr& call, Env& env, BlockCtx& ctx);
  void elabSetCopyPadValue(const py::Expr& call, Env& env, BlockCtx& ctx);
  void padRowsTo32Bytes(ir::Region& dst);
  // T.copy inside a T.SimtVF region: the threads copy element by element.
  Value attributeOf(const Value& base, const std::string& id, SourceLoc loc);
  Value viewOf(const std::string& fnName, const py::Expr& call, Env& env, const std::string& name);
  Value makeView(const std::string& what, const ir::Buffer& base, const Value& shape,
                 const Value& dtype, SourceLoc loc, SourceLoc shapeLoc, SourceLoc dtypeLoc,
                 const std::string& name);
  void unrollInParallel(const py::Stmt& s, const std::string& what, Env& env, BlockCtx& ctx);
  ir::AtomicOp atomicStoreOp(const py::Expr& call, const ir::Region& src, const ir::Region& dst);
  void elabSimtCopy(const py::Expr& call, const ir::Region& src, const ir::Region& dst,
                    BlockCtx& ctx);
  void annotateBufferVersions(const py::Expr& call, Env& env);
  void annotateManual(const py::Expr& call, Env& env);
  void annotateUnlimit(const py::Expr& call, Env& env);
  // ---- T.assume (Assume.cpp)
  static bool isAssumeStatement(const py::Stmt& s);
  void elabAssume(const py::Expr& call, Env& env, BlockCtx* ctx = nullptr);
  void elabFinalizeReducer(const py::Expr& call, Env& env);
  // Returns the scalar holding the element before the update when `wantPrev`
  // (an expression `T.atomic_add(C[i], v, return_prev=True)`), else nullptr.
  ir::Expr elabAtomicUpdate(const std::string& name, const py::Expr& call, Env& env, BlockCtx& ctx,
                            bool wantPrev = false);
  // T.gemm(..., unit_flag_ctrl=u): checked (an integer 0..3, or a run-time
  // integer such as T.Select(k == n - 1, 3, 2)), then ignored (Assume.cpp).
  void checkUnitFlag(const py::Keyword& k, Env& env);
  // float8 values are stored, copied and cast, never computed with: an error
  // naming `what` (the operation) when one of `operands` is float8 (Float8.cpp).
  // `x op y` on float8 values of one format: through float32, rounded back
  // (Float8.cpp); nullptr when the operands are not such values.
  ir::Expr float8Arithmetic(ir::BinOp op, const ir::Expr& x, const ir::Expr& y);
  // `-x`; on a float8 value through float32 as above.
  ir::Expr negation(const ir::Expr& x);
  void rejectFloat8Compute(std::initializer_list<ir::Expr> operands, SourceLoc loc,
                           const std::string& what);
  void requireNotElementwise(const std::string& what, SourceLoc loc, const BlockCtx& ctx);
  // ---- T.simd.* register intrinsics inside T.SimdVF (SimdOps.cpp)
  Value callSimd(const std::string& op, const py::Expr& call, Env& env);
  // One handler per intrinsic family, the table in callSimd.
  Value simdPredicate(SimdCall& c);
  Value simdUpdateMask(SimdCall& c);
  Value simdCompare(SimdCall& c);
  Value simdMemBar(SimdCall& c);
  Value simdAlloc(SimdCall& c);
  Value simdLoad(SimdCall& c);
  Value simdStore(SimdCall& c);
  Value simdBinary(SimdCall& c);
  Value simdScalar(SimdCall& c);
  Value simdUnary(SimdCall& c);
  Value simdDifference(SimdCall& c);
  Value simdLeakyRelu(SimdCall& c);
  Value simdSelect(SimdCall& c);
  Value simdIndex(SimdCall& c);
  Value simdReduce(SimdCall& c);
  Value simdInterleave(SimdCall& c);
  Value simdDup(SimdCall& c);
  Value simdDupVector(SimdCall& c);
  Value simdConvert(SimdCall& c);
  bool isSimdRegister(const Value& v) const;
  SimdLanes simdLanes(const Value* mask, ir::DType t, SourceLoc loc);
  void emitLanes(const SimdLanes& active, const std::function<ir::Stmt(const ir::Expr&)>& body,
                 SourceLoc loc);
  Value simdSlots(ir::DType t, int64_t ratio,
                  const std::function<ir::Expr(const ir::Expr&, const ir::Expr&)>& lane,
                  const std::string& what, SourceLoc loc);
  Value simdResult(ir::DType t, const SimdLanes& active,
                   const std::function<ir::Expr(const ir::Expr&)>& lane, const std::string& what,
                   SourceLoc loc);
  std::pair<ir::Buffer, ir::Expr> simdAddress(const Value& addr, SourceLoc loc,
                                              const std::string& what);
  // `acc = r` for a T.simd.alloc_var `acc`: writes its lanes; false for other names.
  // `readsName`: the value is a name read (`b = acc`), not an intrinsic's result.
  bool assignSimdRegister(const Value* old, Value& v, bool readsName, SourceLoc loc);
  Value simdCopy(const Value& v, SourceLoc loc);
  void storeSimdRegister(const ir::Buffer& dst, const ir::Expr& row, const Value& v, SourceLoc loc);
  bool storeSimdArrayRow(const Value& target, const Value& v, SourceLoc loc);
  void simdCheckSpan(const ir::Buffer& flat, const ir::Expr& offset, int64_t lanes,
                     const std::string& what, const char* verb, SourceLoc loc);

  // Diagnostics from kernel code; inside an inlined macro they carry a note
  // per macro call site.
  void error(SourceLoc loc, std::string msg);
  void warning(SourceLoc loc, std::string msg);
  void addMacroNotes(Diagnostic& d);

  std::shared_ptr<const SourceFile> file_;
  const FrontendOptions& options_;
  DiagnosticEngine& diags_;
  std::shared_ptr<Env> moduleEnv_;
  // Values of the kernel scalars bound so far, for slice extents such as A[begin:end].
  ScalarBindings scalarBindings_;
  const py::Module* module_ = nullptr;
  std::map<std::string, Value> argparseDefaults_;  // `parser.add_argument("--m", default=...)`
  std::set<std::string> fixtureNames_;             // functions decorated @pytest.fixture
  std::vector<ir::Kernel> kernels_;
  // T.simd registers (local buffers of one register's lanes); the mutable
  // ones (T.simd.alloc_var); flat aliases of multi-dimensional UB buffers.
  std::set<const ir::StorageNode*> simdRegisters_, simdMutable_;
  std::set<const ir::StorageNode*> simdArrays_;  // T.simd.alloc_local: rows are registers
  std::map<const ir::BufferNode*, ir::Buffer> simdFlat_;
  // Per register (or register array) and slot width k: its lanes as (.., lanes / k, k).
  std::map<std::pair<const ir::BufferNode*, int64_t>, ir::Buffer> simdSlotViews_;
  ir::Expr simdSlotAt(const SimdReg& r, int64_t k, const ir::Expr& slot, int64_t part,
                      SourceLoc loc);
  std::string simdNameHint_;  // the target name of the assignment being elaborated
  int64_t unrollCopies_ = 1;  // product of the trip counts of the enclosing unrolled loops
  ir::Var lastPrevVar_;       // the scalar of the last `x = T.atomic_*(..., return_prev=True)`
  std::vector<std::string> usedDefines_;
  // T.dynamic sizes the factory being run takes from its own call's tensors
  // (used like -D values, which win).
  std::map<std::string, int64_t> dynamicFromCall_;
  // Tensor parameters the file's own call fills with known kinds of values
  // (`torch.zeros`, `torch.randperm(n)[:k]`, ...), by parameter name.
  std::map<std::string, ir::InputRecipe> inputsFromCall_;
  std::map<std::string, std::unique_ptr<ImportedModule>> imports_;  // by module name
  std::vector<ImportedModule*> importOrder_;                        // in load order
  std::vector<UnreadableImport> unreadableImports_;
  std::set<const py::Stmt*> compiledDefs_;  // factories and prim_funcs already compiled
  // Imported factories the file never calls with constants: compiled only when
  // no other kernel is (their missing parameters are then the errors).
  struct DeferredImport {
    const py::Stmt* def;
    std::shared_ptr<Env> closure;
    std::string bound;
  };
  std::vector<DeferredImport> deferredImports_;
  size_t scanBudget_ = 0;           // statements findFactoryCall may still visit
  ir::Kernel* kernel_ = nullptr;    // the kernel being built
  BlockCtx* currentCtx_ = nullptr;  // the block of the statement being elaborated
  int nextId_ = 0;
  int callDepth_ = 0;
  // One more level of helper, macro or property calls while it lives; a
  // level past kMaxCallDepth (a recursion) is the error `message` at `loc`.
  struct CallLevel {
    explicit CallLevel(int& d) : depth(d) {}
    CallLevel(const CallLevel&) = delete;
    CallLevel& operator=(const CallLevel&) = delete;
    ~CallLevel() { --depth; }
    int& depth;
  };
  [[nodiscard]] CallLevel enterCall(SourceLoc loc, const char* message);
  std::map<std::string, int> bufferNames_;
  std::set<const ir::StorageNode*> reducers_;  // storages made by T.alloc_reducer
  ir::Stmt pendingInit_;
  std::vector<NameScope> scopes_;  // innermost last
  // The armed T.set_atomic mode (lexical: a loop, branch or VF body must
  // leave it as it found it); `loc` is where it was last set or cleared.
  struct AtomicMode {
    ir::AtomicOp op = ir::AtomicOp::None;
    ir::DType dtype = ir::DType::Float32;
    SourceLoc loc;
  };
  AtomicMode atomic_;
  // The copy pad register set by T.ascend_set_copy_pad_value(v, dtype=) and
  // read by T.copy(..., data_select=True). Lexical like the atomic mode: a loop,
  // branch or VF body that sets it keeps the value to itself (`droppedAt`
  // remembers such a set, for the message of a later copy).
  struct PadRegister {
    ir::Expr value;  // null: never set in this body or around it
    ir::DType dtype = ir::DType::Float32;
    SourceLoc loc;
    std::optional<SourceLoc> droppedAt;
  };
  PadRegister padRegister_;
  std::vector<std::pair<std::string, SourceLoc>>
      macroStack_;  // macros being inlined, with call sites  // T.alloc_var(init=...) store,
                    // emitted after the allocation
};

// ------------------------------------------------------------ shared helpers
// (Elaborator.cpp, HostEval.cpp, ElabKernel.cpp)

// The T.dynamic sizes an expression reads, in first-use order.
inline void dynamicNames(const ir::Expr& e, std::vector<std::string>& out) {
  if (!e) return;
  if (e->kind == ir::ExprKind::VarRef && e->var && e->var->kind == ir::VarKind::Dynamic &&
      std::find(out.begin(), out.end(), e->var->name) == out.end())
    out.push_back(e->var->name);
  for (const auto& o : e->operands) dynamicNames(o, out);
}

// `m = T.dynamic("m")` run outside a kernel: a size that becomes the kernel's
// dynamic variable where a kernel reads the name.
inline bool isDeferredDynamic(const Value& v) {
  return v.kind == Value::Kind::Opaque && v.s == "T.dynamic";
}

inline constexpr int kMaxCallDepth = 64;
// Looking for a factory's call: parameter sets (and loop iterations) tried per
// test function (loop), and statements visited in all.
inline constexpr size_t kMaxParamSets = 64;
inline constexpr size_t kScanBudget = 100000;
// Constant loops are unrolled while the kernel is built; beyond this, write a T.serial loop.
inline constexpr size_t kMaxUnroll = 4096;
// Loop iterations a compile-time helper function may run in all.
inline constexpr size_t kMaxHelperIterations =
    size_t(1) << 16;  // a sanitizer build runs 2^16 in about a second

// A buffer extent as an IR constant: int32 when it fits, int64 beyond (an
// int32 immediate would wrap 2^31 to -2^31 and 2^40 to 0).
inline ir::Expr extentImm(int64_t extent) {
  return ir::intImm(
      extent, extent > std::numeric_limits<int32_t>::max() ? ir::DType::Int64 : ir::DType::Int32);
}

// Python's int.bit_length().
inline int64_t bitLength(int64_t v) {
  uint64_t m = v < 0 ? uint64_t(0) - uint64_t(v) : uint64_t(v);
  int64_t n = 0;
  while (m) {
    ++n;
    m >>= 1;
  }
  return n;
}

inline bool isDialectModule(const std::string& module) {
  return module == "tilelang.language" || module == "tilelang.ascend.language" ||
         module == "tilelang.language.ascend";
}

inline std::string dottedName(const py::Expr& e) {
  if (e.kind == py::ExprKind::Name) return e.id;
  if (e.kind == py::ExprKind::Attribute && e.lhs) {
    std::string base = dottedName(*e.lhs);
    return base.empty() ? "" : base + "." + e.id;
  }
  if (e.kind == py::ExprKind::Call && e.lhs) return dottedName(*e.lhs);
  return "";
}

inline const char* kUnsupportedDialect[] = {"Task", "assume_no_conflict", "vmi"};

}  // namespace tilesched::frontend
