// Recursive-descent Python parser; see Parser.h for the contract.
//
// Errors inside a statement are thrown as ParseError and caught once per
// statement, where the statement's tokens are skipped by the INDENT/DEDENT
// structure alone (never by grammar), which is what keeps the rest of the
// file parseable. Expression recursion is bounded by a depth counter and the
// height of every built node is checked, so neither parsing nor destroying
// nor visiting the tree can overflow the stack.
#include "frontend/Parser.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <unordered_map>

#include "frontend/Lexer.h"

namespace tilesched::py {

namespace {

struct ParseError {
  std::string message;
  SourceLoc loc;
  size_t tokenIndex;  // the problem's token; the skip covers its logical line
};

// Token text as it may appear in a message: printable ASCII, bounded length.
std::string forMessage(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (out.size() >= 40) return out + "...";
    if (c >= 0x20 && c < 0x7F) {
      out += char(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  return out;
}

std::string locText(SourceLoc l) { return std::to_string(l.line) + ":" + std::to_string(l.col); }

bool isAugAssignOp(const Token& t) {
  static constexpr std::array<std::string_view, 13> kOps = {
      "+=", "-=", "*=", "/=", "//=", "%=", "**=", "<<=", ">>=", "&=", "|=", "^=", "@="};
  return t.kind == TokenKind::Op && std::find(kOps.begin(), kOps.end(), t.text) != kOps.end();
}

int binaryPrecedence(const Token& t) {
  if (t.kind != TokenKind::Op) return 0;
  const std::string& s = t.text;
  if (s == "|") return 1;
  if (s == "^") return 2;
  if (s == "&") return 3;
  if (s == "<<" || s == ">>") return 4;
  if (s == "+" || s == "-") return 5;
  if (s == "*" || s == "@" || s == "/" || s == "//" || s == "%") return 6;
  return 0;
}

bool startsComprehension(const Token& t) { return t.isName("for") || t.isName("async"); }

bool isSignificant(const Token& t) {
  return t.kind == TokenKind::Name || t.kind == TokenKind::Number || t.kind == TokenKind::String ||
         t.kind == TokenKind::Op;
}

// What cannot be the target of an assignment, in Python's words.
const char* targetKindName(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Call:
      return "function call";
    case ExprKind::Int:
    case ExprKind::Float:
    case ExprKind::Str:
    case ExprKind::FStr:
    case ExprKind::Ellipsis:
      return "literal";
    case ExprKind::Bool:
      return e.boolValue ? "True" : "False";
    case ExprKind::None:
      return "None";
    case ExprKind::Compare:
      return "comparison";
    case ExprKind::IfExp:
      return "conditional expression";
    case ExprKind::Lambda:
      return "lambda";
    case ExprKind::Dict:
      return "dict literal";
    case ExprKind::Set:
      return "set display";
    case ExprKind::Comprehension:
      return "comprehension";
    default:
      return "expression";
  }
}

class Parser {
 public:
  explicit Parser(const std::vector<Token>& tokens, int depth = 0,
                  std::string endName = "end of file", bool fstringField = false)
      : t_(tokens), depth_(depth), endName_(std::move(endName)), fstringField_(fstringField) {}

  Module parseModule();
  ExprPtr parseWholeExpression();
  int heightOf(const Expr* e) const {
    auto it = heights_.find(e);
    return it == heights_.end() ? 1 : it->second;
  }

 private:
  friend class DepthGuard;

  // --- tokens ------------------------------------------------------------
  const Token& cur() const { return t_[pos_]; }
  const Token& peekTok(size_t k = 1) const { return t_[std::min(pos_ + k, t_.size() - 1)]; }
  bool atOp(std::string_view s) const { return cur().isOp(s); }
  bool atKeyword(std::string_view s) const { return cur().isName(s); }
  bool atEnd() const { return cur().kind == TokenKind::EndOfFile; }
  bool atLineEnd() const {
    return cur().kind == TokenKind::Newline || cur().kind == TokenKind::EndOfFile;
  }
  const Token& advance() {
    const Token& tok = t_[pos_];
    if (tok.kind != TokenKind::EndOfFile) ++pos_;
    if (isSignificant(tok)) lastEnd_ = tok.endLoc;
    return tok;
  }
  bool acceptOp(std::string_view s) {
    if (!atOp(s)) return false;
    advance();
    return true;
  }
  bool acceptKeyword(std::string_view s) {
    if (!atKeyword(s)) return false;
    advance();
    return true;
  }
  std::string describe(const Token& t) const;
  [[noreturn]] void fail(std::string message) {
    throw ParseError{std::move(message), cur().loc, pos_};
  }
  [[noreturn]] void failAt(std::string message, SourceLoc at) {
    throw ParseError{std::move(message), at, pos_};
  }
  void expectOp(std::string_view s) {
    if (!acceptOp(s)) fail("expected '" + std::string(s) + "'");
  }
  void expectClose(const Token& open, std::string_view closer) {
    if (!acceptOp(closer)) fail(closeMessage(open, closer));
  }
  static std::string closeMessage(const Token& open, std::string_view closer) {
    return "expected '" + std::string(closer) + "' to close '" + open.text + "' at " +
           locText(open.loc);
  }
  std::string expectIdentifier(const char* what);

  // --- statements --------------------------------------------------------
  void parseStatement(StmtList& out, int indentLevel);
  StmtPtr unsupportedStatement();
  StmtPtr parseTry(int indentLevel);
  StmtPtr parseCompound(int indentLevel);
  StmtList parseBlock(const std::string& what, SourceLoc header, int indentLevel);
  void parseSimpleStatements(StmtList& out);
  StmtPtr parseSmallStatement();
  StmtPtr parseExpressionStatement();
  StmtPtr parseImport();
  StmtPtr parseFromImport();
  StmtPtr parseIf(int indentLevel);
  StmtPtr parseWhile(int indentLevel);
  StmtPtr parseFor(int indentLevel);
  StmtPtr parseWith(int indentLevel);
  StmtPtr parseDecorated(int indentLevel);
  StmtPtr parseFunctionDef(std::vector<ExprPtr> decorators, SourceLoc start, int indentLevel);
  StmtPtr parseClassDef(std::vector<ExprPtr> decorators, SourceLoc start, int indentLevel);
  WithItem parseWithItem();
  void parseParams(std::vector<Param>& out, std::string_view closer, bool annotations);
  StmtPtr makeUnparsed(size_t start, const ParseError& error);
  void skipClause();
  void checkTarget(const Expr& e, bool allowStar);

  // --- expressions -------------------------------------------------------
  ExprPtr make(ExprKind kind, SourceLoc loc) {
    auto e = std::make_unique<Expr>(kind, loc);
    heights_.erase(e.get());  // the address may be a freed node's
    return e;
  }
  ExprPtr done(ExprPtr e);
  bool startsExpression(const Token& t) const;
  ExprPtr parseStarExpressions();
  ExprPtr parseStarOrTest();
  ExprPtr parseNamedTest();
  ExprPtr parseTest();
  ExprPtr parseOrAnd(const char* op);
  ExprPtr parseNotTest();
  ExprPtr parseComparison();
  ExprPtr parseBinary(int minPrecedence);
  ExprPtr parseFactor();
  ExprPtr parsePower();
  ExprPtr parsePrimary();
  ExprPtr parseAtom();
  ExprPtr parseParen();
  ExprPtr parseList();
  ExprPtr parseDictOrSet();
  ExprPtr parseStrings();
  ExprPtr parseFStringField(const FStrTokenPart& part, size_t tokenIndex);
  ExprPtr parseLambda();
  ExprPtr parseCall(ExprPtr func);
  ExprPtr parseSubscript(ExprPtr value);
  ExprPtr parseSliceItem();
  ExprPtr parseTargetList();
  ExprPtr makeComprehension(const Token& open, std::string_view closer);

  const std::vector<Token>& t_;
  size_t pos_ = 0;
  int depth_ = 0;
  std::string endName_;  // how EndOfFile reads in messages
  bool fstringField_;    // parsing an f-string replacement field
  SourceLoc lastEnd_;
  std::unordered_map<const Expr*, int> heights_;
};

// Bounds recursion: every recursive expression rule holds one.
class DepthGuard {
 public:
  explicit DepthGuard(Parser& p) : p_(p) {
    if (++p_.depth_ > kMaxExpressionDepth) {
      --p_.depth_;
      p_.fail("expression nested too deeply");
    }
  }
  ~DepthGuard() { --p_.depth_; }
  DepthGuard(const DepthGuard&) = delete;
  DepthGuard& operator=(const DepthGuard&) = delete;

 private:
  Parser& p_;
};

std::string Parser::describe(const Token& t) const {
  switch (t.kind) {
    case TokenKind::Newline:
      return "end of line";
    case TokenKind::Indent:
      return "indent";
    case TokenKind::Dedent:
      return "end of block";
    case TokenKind::EndOfFile:
      return endName_;
    case TokenKind::String:
      return "string literal";
    default:
      return "'" + forMessage(t.text) + "'";
  }
}

std::string Parser::expectIdentifier(const char* what) {
  if (cur().kind != TokenKind::Name || isKeyword(cur().text))
    fail(std::string("expected ") + what + ", found " + describe(cur()));
  return advance().text;
}

// ---------------------------------------------------------------------------
// Statements
// ---------------------------------------------------------------------------

Module Parser::parseModule() {
  Module m;
  while (!atEnd()) parseStatement(m.body, 0);
  return m;
}

void Parser::parseStatement(StmtList& out, int indentLevel) {
  if (cur().kind == TokenKind::Newline || cur().kind == TokenKind::Dedent) {
    advance();  // only after the lexer dropped a line's only token
    return;
  }
  // Expressions never span statements. A fresh map, because clear() costs
  // the bucket count a huge earlier expression left behind.
  if (!heights_.empty()) heights_ = {};
  size_t start = pos_;
  size_t outSize = out.size();
  try {
    if (cur().kind == TokenKind::Indent) throw ParseError{"unexpected indent", cur().loc, pos_};
    if (atKeyword("try")) {
      out.push_back(parseTry(indentLevel));
      return;
    }
    if (StmtPtr s = unsupportedStatement()) {
      out.push_back(std::move(s));
      return;
    }
    if (StmtPtr s = parseCompound(indentLevel)) {
      out.push_back(std::move(s));
      return;
    }
    parseSimpleStatements(out);
  } catch (const ParseError& e) {
    out.resize(outSize);
    out.push_back(makeUnparsed(start, e));
  }
}

// Statements we recognise but do not model; they are skipped whole.
StmtPtr Parser::unsupportedStatement() {
  const Token& t = cur();
  if (t.kind != TokenKind::Name) return nullptr;
  std::string reason;
  if (t.text == "try" || t.text == "async") {
    reason = "'" + t.text + "' statements are not supported";
  } else if (t.text == "match" || t.text == "type") {
    // Soft keywords: only a statement when the line has that shape.
    const Token& next = peekTok();
    if (t.text == "match") {
      bool nextStartsOperand = next.kind == TokenKind::Name || next.kind == TokenKind::Number ||
                               next.kind == TokenKind::String || next.isOp("(") || next.isOp("[") ||
                               next.isOp("{") || next.isOp("-") || next.isOp("*");
      size_t end = pos_;
      while (t_[end].kind != TokenKind::Newline && t_[end].kind != TokenKind::EndOfFile) ++end;
      bool header = end > pos_ + 1 && t_[end - 1].isOp(":");
      if (!nextStartsOperand || !header) return nullptr;
    } else {
      const Token& third = peekTok(2);
      bool alias = next.kind == TokenKind::Name && !isKeyword(next.text) &&
                   (third.isOp("=") || third.isOp("["));
      if (!alias) return nullptr;
    }
    reason = "'" + t.text + "' statements are not supported";
  } else {
    return nullptr;
  }
  return makeUnparsed(pos_, ParseError{reason, t.loc, pos_});
}

StmtPtr Parser::parseCompound(int indentLevel) {
  if (atOp("@")) return parseDecorated(indentLevel);
  if (cur().kind != TokenKind::Name) return nullptr;
  const std::string& k = cur().text;
  if (k == "if") return parseIf(indentLevel);
  if (k == "while") return parseWhile(indentLevel);
  if (k == "for") return parseFor(indentLevel);
  if (k == "with") return parseWith(indentLevel);
  if (k == "def") return parseFunctionDef({}, cur().loc, indentLevel);
  if (k == "class") return parseClassDef({}, cur().loc, indentLevel);
  if (k == "elif" || k == "else" || k == "except" || k == "finally")
    fail("'" + k + "' without a matching statement");
  return nullptr;
}

// Parses ':' and the block after it. `what` names the header for messages
// ("'if' statement", "function definition").
StmtList Parser::parseBlock(const std::string& what, SourceLoc header, int indentLevel) {
  expectOp(":");
  StmtList body;
  if (cur().kind != TokenKind::Newline) {
    if (atEnd())
      fail("expected an indented block after " + what + " on line " + std::to_string(header.line));
    parseSimpleStatements(body);
    return body;
  }
  size_t newline = pos_;
  advance();
  if (cur().kind != TokenKind::Indent) {
    throw ParseError{
        "expected an indented block after " + what + " on line " + std::to_string(header.line),
        cur().loc, newline};
  }
  if (indentLevel + 1 > kMaxBlockDepth)
    throw ParseError{"too many levels of indentation", cur().loc, newline};
  advance();
  while (cur().kind != TokenKind::Dedent && !atEnd()) parseStatement(body, indentLevel + 1);
  if (cur().kind == TokenKind::Dedent) advance();
  return body;
}

void Parser::parseSimpleStatements(StmtList& out) {
  while (true) {
    out.push_back(parseSmallStatement());
    out.back()->endLoc = lastEnd_;
    if (!acceptOp(";") || atLineEnd()) break;
  }
  if (cur().kind == TokenKind::Newline) {
    advance();
    return;
  }
  if (!atEnd()) fail("unexpected " + describe(cur()));
}

StmtPtr Parser::parseSmallStatement() {
  const Token& t = cur();
  SourceLoc loc = t.loc;
  auto simple = [&](StmtKind kind) {
    advance();
    return std::make_unique<Stmt>(kind, loc);
  };
  auto endOfStatement = [&] { return atLineEnd() || atOp(";"); };
  if (t.kind != TokenKind::Name) return parseExpressionStatement();
  const std::string& k = t.text;
  if (k == "pass") return simple(StmtKind::Pass);
  if (k == "break") return simple(StmtKind::Break);
  if (k == "continue") return simple(StmtKind::Continue);
  if (k == "return") {
    auto s = simple(StmtKind::Return);
    if (!endOfStatement()) s->value = parseStarExpressions();
    return s;
  }
  if (k == "raise") {
    auto s = simple(StmtKind::Raise);
    if (!endOfStatement()) {
      s->value = parseTest();
      if (acceptKeyword("from")) parseTest();  // the cause is not modelled
    }
    return s;
  }
  if (k == "assert") {
    auto s = simple(StmtKind::Assert);
    s->value = parseTest();
    if (acceptOp(",")) s->annotation = parseTest();
    return s;
  }
  if (k == "import") return parseImport();
  if (k == "from") return parseFromImport();
  if (k == "global" || k == "nonlocal") {
    auto s = simple(StmtKind::Global);
    do {
      SourceLoc nameLoc = cur().loc;
      auto name = make(ExprKind::Name, nameLoc);
      name->id = expectIdentifier("a name");
      s->targets.push_back(std::move(name));
    } while (acceptOp(","));
    return s;
  }
  if (k == "del") {
    auto s = simple(StmtKind::Delete);
    do {
      if (endOfStatement()) break;
      ExprPtr target = parseBinary(1);
      checkTarget(*target, false);
      s->targets.push_back(std::move(target));
    } while (acceptOp(","));
    if (s->targets.empty()) fail("expected a target after 'del'");
    return s;
  }
  return parseExpressionStatement();
}

StmtPtr Parser::parseExpressionStatement() {
  SourceLoc loc = cur().loc;
  ExprPtr first = parseStarExpressions();
  if (atOp(":")) {
    bool single = first->kind == ExprKind::Name || first->kind == ExprKind::Attribute ||
                  first->kind == ExprKind::Subscript;
    if (first->kind == ExprKind::Tuple) fail("only single target (not tuple) can be annotated");
    if (!single)
      failAt(std::string("illegal target for annotation: ") + targetKindName(*first), first->loc);
    advance();
    auto s = std::make_unique<Stmt>(StmtKind::AnnAssign, loc);
    s->annotation = parseTest();
    s->targets.push_back(std::move(first));
    if (acceptOp("=")) s->value = parseStarExpressions();
    return s;
  }
  if (isAugAssignOp(cur())) {
    bool single = first->kind == ExprKind::Name || first->kind == ExprKind::Attribute ||
                  first->kind == ExprKind::Subscript;
    if (!single)
      failAt(std::string("'") + targetKindName(*first) +
                 "' is an illegal expression for augmented assignment",
             first->loc);
    auto s = std::make_unique<Stmt>(StmtKind::AugAssign, loc);
    const std::string& op = advance().text;
    s->op = op.substr(0, op.size() - 1);
    s->targets.push_back(std::move(first));
    s->value = parseStarExpressions();
    return s;
  }
  if (atOp("=")) {
    auto s = std::make_unique<Stmt>(StmtKind::Assign, loc);
    s->targets.push_back(std::move(first));
    while (acceptOp("=")) s->targets.push_back(parseStarExpressions());
    s->value = std::move(s->targets.back());
    s->targets.pop_back();
    for (const ExprPtr& target : s->targets) checkTarget(*target, false);
    return s;
  }
  auto s = std::make_unique<Stmt>(StmtKind::Expr, loc);
  s->value = std::move(first);
  return s;
}

// Rejects what Python rejects as an assignment / for / with / del target.
void Parser::checkTarget(const Expr& e, bool insideSequence) {
  switch (e.kind) {
    case ExprKind::Name:
    case ExprKind::Attribute:
    case ExprKind::Subscript:
      return;
    case ExprKind::Tuple:
    case ExprKind::List:
      for (const ExprPtr& elt : e.elts) checkTarget(*elt, true);
      return;
    case ExprKind::Starred:
      if (!insideSequence) failAt("starred assignment target must be in a list or tuple", e.loc);
      checkTarget(*e.lhs, false);
      return;
    default:
      failAt(std::string("cannot assign to ") + targetKindName(e), e.loc);
  }
}

StmtPtr Parser::parseImport() {
  auto s = std::make_unique<Stmt>(StmtKind::Import, advance().loc);
  do {
    ImportName name;
    name.module = expectIdentifier("a module name");
    while (acceptOp(".")) name.module += "." + expectIdentifier("a module name");
    if (acceptKeyword("as")) name.alias = expectIdentifier("a name after 'as'");
    s->importNames.push_back(std::move(name));
  } while (acceptOp(","));
  return s;
}

StmtPtr Parser::parseFromImport() {
  auto s = std::make_unique<Stmt>(StmtKind::Import, advance().loc);
  s->fromImport = true;
  std::string base;
  while (atOp(".") || atOp("...")) base += advance().text;
  if (!atKeyword("import")) {
    base += expectIdentifier("a module name");
    while (acceptOp(".")) base += "." + expectIdentifier("a module name");
  }
  if (base.empty()) fail("expected a module name after 'from'");
  if (!acceptKeyword("import")) fail("expected 'import'");
  std::string prefix = base.back() == '.' ? base : base + ".";
  if (acceptOp("*")) {
    s->importNames.push_back({prefix + "*", ""});
    return s;
  }
  bool parenthesised = atOp("(");
  const Token& open = cur();
  if (parenthesised) advance();
  do {
    if (parenthesised && atOp(")")) break;  // trailing comma
    ImportName name;
    name.module = prefix + expectIdentifier("a name to import");
    if (acceptKeyword("as")) name.alias = expectIdentifier("a name after 'as'");
    s->importNames.push_back(std::move(name));
  } while (acceptOp(","));
  if (parenthesised) expectClose(open, ")");
  if (s->importNames.empty()) fail("expected a name to import");
  return s;
}

StmtPtr Parser::parseIf(int indentLevel) {
  auto root = std::make_unique<Stmt>(StmtKind::If, cur().loc);
  Stmt* node = root.get();
  std::vector<Stmt*> chain{node};
  SourceLoc header = advance().loc;
  node->iter = parseNamedTest();
  node->body = parseBlock("'if' statement", header, indentLevel);
  // elif chains are built iteratively: a long chain must not recurse.
  while (atKeyword("elif")) {
    if (chain.size() >= kMaxElifChain) fail("too many 'elif' clauses");
    auto elif = std::make_unique<Stmt>(StmtKind::If, cur().loc);
    SourceLoc elifLoc = advance().loc;
    elif->iter = parseNamedTest();
    elif->body = parseBlock("'elif' statement", elifLoc, indentLevel);
    Stmt* next = elif.get();
    node->orelse.push_back(std::move(elif));
    node = next;
    chain.push_back(node);
  }
  if (atKeyword("else")) {
    SourceLoc elseLoc = advance().loc;
    node->orelse = parseBlock("'else' statement", elseLoc, indentLevel);
  }
  for (Stmt* s : chain) s->endLoc = lastEnd_;
  return root;
}

// `try:` stays an Unparsed statement (an error where a kernel needs it), but
// its body and first handler are parsed for module-level import fallbacks.
StmtPtr Parser::parseTry(int indentLevel) {
  auto s = std::make_unique<Stmt>(StmtKind::Unparsed, cur().loc);
  s->reason = "'try' statements are not supported";
  s->reasonLoc = cur().loc;
  s->isTry = true;
  SourceLoc header = advance().loc;
  s->body = parseBlock("'try' statement", header, indentLevel);
  bool first = true;
  while (atKeyword("except")) {
    SourceLoc at = advance().loc;
    while (!atOp(":") && !atLineEnd()) advance();  // the exception spec
    StmtList handler = parseBlock("'except' clause", at, indentLevel);
    if (first) s->orelse = std::move(handler);
    first = false;
  }
  bool final = false;
  for (const char* clause : {"else", "finally"})
    if (atKeyword(clause)) {
      final = std::string_view(clause) == "finally";
      SourceLoc at = advance().loc;
      (final ? s->tryFinally : s->tryElse) =
          parseBlock(std::string("'") + clause + "' clause", at, indentLevel);
    }
  if (first && !final) fail("expected 'except' or 'finally' after the 'try' block");
  s->endLoc = lastEnd_;
  return s;
}

StmtPtr Parser::parseWhile(int indentLevel) {
  auto s = std::make_unique<Stmt>(StmtKind::While, cur().loc);
  SourceLoc header = advance().loc;
  s->iter = parseNamedTest();
  s->body = parseBlock("'while' statement", header, indentLevel);
  if (atKeyword("else")) {
    SourceLoc elseLoc = advance().loc;
    s->orelse = parseBlock("'else' statement", elseLoc, indentLevel);
  }
  s->endLoc = lastEnd_;
  return s;
}

StmtPtr Parser::parseFor(int indentLevel) {
  auto s = std::make_unique<Stmt>(StmtKind::For, cur().loc);
  SourceLoc header = advance().loc;
  s->targets.push_back(parseTargetList());
  if (!acceptKeyword("in")) fail("expected 'in'");
  s->iter = parseStarExpressions();
  s->body = parseBlock("'for' statement", header, indentLevel);
  if (atKeyword("else")) {
    SourceLoc elseLoc = advance().loc;
    s->orelse = parseBlock("'else' statement", elseLoc, indentLevel);
  }
  s->endLoc = lastEnd_;
  return s;
}

// `for` targets: star_targets separated by commas, up to `in`.
ExprPtr Parser::parseTargetList() {
  SourceLoc loc = cur().loc;
  auto item = [&] {
    if (!atOp("*")) return parseBinary(1);
    auto star = make(ExprKind::Starred, advance().loc);
    star->lhs = parseBinary(1);
    return done(std::move(star));
  };
  ExprPtr first = item();
  if (!atOp(",")) {
    checkTarget(*first, false);
    return first;
  }
  auto tuple = make(ExprKind::Tuple, loc);
  tuple->elts.push_back(std::move(first));
  while (acceptOp(",")) {
    if (atKeyword("in")) break;
    tuple->elts.push_back(item());
  }
  checkTarget(*tuple, false);
  return done(std::move(tuple));
}

StmtPtr Parser::parseWith(int indentLevel) {
  auto s = std::make_unique<Stmt>(StmtKind::With, cur().loc);
  SourceLoc header = advance().loc;
  bool parsed = false;
  if (atOp("(")) {
    // `with (a as b, c):` — but `with (a, b) as c:` is one parenthesised
    // expression, so try the item list first and fall back.
    size_t save = pos_;
    SourceLoc saveEnd = lastEnd_;
    try {
      const Token& open = advance();
      do {
        if (atOp(")")) break;
        s->withItems.push_back(parseWithItem());
      } while (acceptOp(","));
      expectClose(open, ")");
      if (!atOp(":") || s->withItems.empty()) fail("expected ':'");
      parsed = true;
    } catch (const ParseError&) {
      pos_ = save;
      lastEnd_ = saveEnd;
      s->withItems.clear();
    }
  }
  if (!parsed) {
    do s->withItems.push_back(parseWithItem());
    while (acceptOp(","));
  }
  s->body = parseBlock("'with' statement", header, indentLevel);
  s->endLoc = lastEnd_;
  return s;
}

WithItem Parser::parseWithItem() {
  WithItem item;
  item.context = parseNamedTest();
  if (acceptKeyword("as")) {
    item.target = parseBinary(1);
    checkTarget(*item.target, false);
  }
  return item;
}

StmtPtr Parser::parseDecorated(int indentLevel) {
  SourceLoc start = cur().loc;
  std::vector<ExprPtr> decorators;
  while (acceptOp("@")) {
    decorators.push_back(parseNamedTest());
    if (cur().kind != TokenKind::Newline) fail("expected end of line after decorator");
    advance();
  }
  if (atKeyword("def")) return parseFunctionDef(std::move(decorators), start, indentLevel);
  if (atKeyword("class")) return parseClassDef(std::move(decorators), start, indentLevel);
  if (atKeyword("async")) fail("'async' statements are not supported");
  fail("expected 'def' or 'class' after decorator, found " + describe(cur()));
}

StmtPtr Parser::parseFunctionDef(std::vector<ExprPtr> decorators, SourceLoc start,
                                 int indentLevel) {
  auto s = std::make_unique<Stmt>(StmtKind::FunctionDef, start);
  s->decorators = std::move(decorators);
  SourceLoc header = advance().loc;
  s->name = expectIdentifier("a function name");
  if (atOp("[")) fail("type parameters are not supported");
  const Token& open = cur();
  expectOp("(");
  parseParams(s->params, ")", true);
  expectClose(open, ")");
  if (acceptOp("->")) s->returns = parseTest();
  s->body = parseBlock("function definition", header, indentLevel);
  s->endLoc = lastEnd_;
  return s;
}

StmtPtr Parser::parseClassDef(std::vector<ExprPtr> decorators, SourceLoc start, int indentLevel) {
  auto s = std::make_unique<Stmt>(StmtKind::ClassDef, start);
  s->decorators = std::move(decorators);
  SourceLoc header = advance().loc;
  s->name = expectIdentifier("a class name");
  if (atOp("[")) fail("type parameters are not supported");
  if (atOp("(")) parseCall(make(ExprKind::Name, cur().loc));  // bases: parsed, dropped
  s->body = parseBlock("class definition", header, indentLevel);
  s->endLoc = lastEnd_;
  return s;
}

void Parser::parseParams(std::vector<Param>& out, std::string_view closer, bool annotations) {
  bool seenStar = false, seenSlash = false, seenDefault = false, seenKwargs = false;
  bool bareStar = false;
  while (!atOp(closer)) {
    if (seenKwargs) fail("arguments cannot follow var-keyword argument");
    if (atOp("/")) {
      if (out.empty()) fail("at least one argument must precede /");
      if (seenSlash) fail("/ may appear only once");
      if (seenStar) fail("/ must be ahead of *");
      advance();
      seenSlash = true;
      for (Param& p : out) p.positionalOnly = true;
    } else if (atOp("*") || atOp("**")) {
      bool kwargs = advance().text == "**";
      if (!kwargs && seenStar) fail("* argument may appear only once");
      if (!kwargs && (atOp(",") || atOp(closer))) {
        seenStar = bareStar = true;
      } else {
        Param p;
        p.loc = cur().loc;
        p.name = expectIdentifier("a parameter name");
        p.varArgs = !kwargs;
        p.varKwargs = kwargs;
        if (annotations && acceptOp(":")) p.annotation = kwargs ? parseTest() : parseStarOrTest();
        if (atOp("="))
          fail(kwargs ? "var-keyword argument cannot have default value"
                      : "var-positional argument cannot have default value");
        seenStar = seenStar || !kwargs;
        seenKwargs = kwargs;
        bareStar = false;
        out.push_back(std::move(p));
      }
    } else {
      Param p;
      p.loc = cur().loc;
      p.name = expectIdentifier("a parameter name");
      if (annotations && acceptOp(":")) p.annotation = parseTest();
      if (acceptOp("=")) {
        p.defaultValue = parseTest();
        seenDefault = true;
      } else if (seenDefault && !seenStar) {
        failAt("parameter without a default follows parameter with a default", p.loc);
      }
      p.keywordOnly = seenStar;
      bareStar = false;
      out.push_back(std::move(p));
    }
    for (size_t i = 0; i + 1 < out.size(); ++i)
      if (out[i].name == out.back().name)
        failAt("duplicate argument '" + out.back().name + "' in function definition",
               out.back().loc);
    if (!acceptOp(",")) break;
  }
  if (bareStar) fail("named arguments must follow bare *");
}

// Skips one logical line and the indented block after it.
void Parser::skipClause() {
  while (!atLineEnd() && cur().kind != TokenKind::Indent && cur().kind != TokenKind::Dedent)
    advance();
  if (cur().kind == TokenKind::Newline) advance();
  if (cur().kind != TokenKind::Indent) return;
  int depth = 0;
  do {
    if (cur().kind == TokenKind::Indent) ++depth;
    if (cur().kind == TokenKind::Dedent) --depth;
    advance();
  } while (depth > 0 && !atEnd());
}

// Builds the Unparsed statement for a statement starting at token `start`
// that failed at `error.tokenIndex`: skips its lines up to the failing one,
// their blocks, and the clauses that continue it.
StmtPtr Parser::makeUnparsed(size_t start, const ParseError& error) {
  auto s = std::make_unique<Stmt>(StmtKind::Unparsed, t_[start].loc);
  s->reason = error.message;
  s->reasonLoc = error.loc;
  pos_ = start;
  lastEnd_ = t_[start].endLoc;
  if (cur().kind == TokenKind::Indent) {
    skipClause();  // an unexpected indent: the block alone
  } else {
    skipClause();
    while (pos_ <= error.tokenIndex && cur().kind != TokenKind::Dedent && !atEnd()) skipClause();
  }
  const Token& first = t_[start];
  const Token& second = t_[std::min(start + 1, t_.size() - 1)];
  // The names it would have bound (`a, b = ...`, `for i in ...`), so that
  // their uses after it read as failed instead of cascading "name 'a' is not
  // defined" errors.
  {
    size_t i = start + (first.isName("for") ? 1 : 0);
    std::vector<ExprPtr> names;
    while (i < t_.size() && t_[i].kind == TokenKind::Name && !t_[i].isName("in")) {
      auto name = make(ExprKind::Name, t_[i].loc);
      name->id = t_[i].text;
      names.push_back(std::move(name));
      if (i + 1 < t_.size() && t_[i + 1].isOp(",")) {
        i += 2;
        continue;
      }
      ++i;
      break;
    }
    bool binds = i < t_.size() && (first.isName("for") ? t_[i].isName("in") : t_[i].isOp("="));
    if (binds && !first.isName("if") && !first.isName("while"))
      for (auto& n : names) s->targets.push_back(std::move(n));
  }
  std::vector<std::string_view> clauses;
  if (first.isName("if")) clauses = {"elif", "else"};
  if (first.isName("for") || first.isName("while")) clauses = {"else"};
  if (first.isName("async") && (second.isName("for") || second.isName("while"))) clauses = {"else"};
  if (first.isName("try")) clauses = {"except", "else", "finally"};
  auto continues = [&] {
    return cur().kind == TokenKind::Name &&
           std::find(clauses.begin(), clauses.end(), cur().text) != clauses.end();
  };
  while (continues()) skipClause();
  s->endLoc = lastEnd_;
  return s;
}

// ---------------------------------------------------------------------------
// Expressions
// ---------------------------------------------------------------------------

// Records the height of a finished node; refuses trees too tall to visit.
ExprPtr Parser::done(ExprPtr e) {
  int h = 0;
  auto see = [&](const ExprPtr& c) {
    if (c) h = std::max(h, heightOf(c.get()));
  };
  see(e->lhs);
  see(e->rhs);
  see(e->step);
  for (const ExprPtr& c : e->elts) see(c);
  for (const ExprPtr& c : e->keys) see(c);
  for (const ExprPtr& c : e->values) see(c);
  for (const Keyword& k : e->keywords) see(k.value);
  for (const Param& p : e->params) {
    see(p.annotation);
    see(p.defaultValue);
  }
  for (const FStrPart& p : e->fstrParts) see(p.expr);
  if (h + 1 > kMaxExpressionHeight) failAt("expression nested too deeply", e->loc);
  heights_[e.get()] = h + 1;
  return e;
}

bool Parser::startsExpression(const Token& t) const {
  switch (t.kind) {
    case TokenKind::Number:
    case TokenKind::String:
      return true;
    case TokenKind::Name:
      return !isKeyword(t.text) || t.text == "None" || t.text == "True" || t.text == "False" ||
             t.text == "not" || t.text == "lambda" || t.text == "await" || t.text == "yield";
    case TokenKind::Op:
      return t.text == "(" || t.text == "[" || t.text == "{" || t.text == "-" || t.text == "+" ||
             t.text == "~" || t.text == "*" || t.text == "...";
    default:
      return false;
  }
}

// star_expressions: `a`, `a, b`, `a, *b,` (a Tuple when there is a comma).
ExprPtr Parser::parseStarExpressions() {
  SourceLoc loc = cur().loc;
  ExprPtr first = parseStarOrTest();
  if (!atOp(",")) return first;
  auto tuple = make(ExprKind::Tuple, loc);
  tuple->elts.push_back(std::move(first));
  while (acceptOp(",")) {
    if (!startsExpression(cur())) break;
    tuple->elts.push_back(parseStarOrTest());
  }
  return done(std::move(tuple));
}

ExprPtr Parser::parseStarOrTest() {
  if (!atOp("*")) return parseNamedTest();
  auto star = make(ExprKind::Starred, advance().loc);
  star->lhs = parseBinary(1);
  return done(std::move(star));
}

// A test where Python would accept `name := value`; we do not model walrus.
ExprPtr Parser::parseNamedTest() {
  ExprPtr e = parseTest();
  if (atOp(":=")) fail("assignment expressions are not supported");
  return e;
}

ExprPtr Parser::parseTest() {
  DepthGuard guard(*this);
  if (atKeyword("lambda")) return parseLambda();
  if (atKeyword("yield")) fail("'yield' expressions are not supported");
  ExprPtr body = parseOrAnd("or");
  if (!atKeyword("if")) return body;
  advance();
  auto e = make(ExprKind::IfExp, body->loc);
  e->lhs = std::move(body);
  e->rhs = parseOrAnd("or");
  if (!acceptKeyword("else")) fail("expected 'else' after 'if' expression");
  e->step = parseTest();
  return done(std::move(e));
}

// or_test / and_test: one flat BoolOp per chain, as in Python's ast.
ExprPtr Parser::parseOrAnd(const char* op) {
  bool isOr = std::string_view(op) == "or";
  auto operand = [&] { return isOr ? parseOrAnd("and") : parseNotTest(); };
  ExprPtr first = operand();
  if (!atKeyword(op)) return first;
  auto e = make(ExprKind::BoolOp, first->loc);
  e->id = op;
  e->elts.push_back(std::move(first));
  while (acceptKeyword(op)) e->elts.push_back(operand());
  return done(std::move(e));
}

ExprPtr Parser::parseNotTest() {
  if (!atKeyword("not")) return parseComparison();
  DepthGuard guard(*this);
  auto e = make(ExprKind::UnaryOp, advance().loc);
  e->id = "not";
  e->lhs = parseNotTest();
  return done(std::move(e));
}

ExprPtr Parser::parseComparison() {
  ExprPtr first = parseBinary(1);
  auto compareOp = [&]() -> std::string {
    const Token& t = cur();
    if (t.kind == TokenKind::Op && (t.text == "<" || t.text == ">" || t.text == "==" ||
                                    t.text == ">=" || t.text == "<=" || t.text == "!="))
      return t.text;
    if (t.isName("in")) return "in";
    if (t.isName("not") && peekTok().isName("in")) return "not in";
    if (t.isName("is")) return peekTok().isName("not") ? "is not" : "is";
    return {};
  };
  std::string op = compareOp();
  if (op.empty()) return first;
  auto e = make(ExprKind::Compare, first->loc);
  e->lhs = std::move(first);
  while (!op.empty()) {
    advance();
    if (op == "not in" || op == "is not") advance();
    e->compareOps.push_back(op);
    e->elts.push_back(parseBinary(1));
    op = compareOp();
  }
  return done(std::move(e));
}

// Binary operators from `|` up to `*`: precedence climbing, left-associative.
ExprPtr Parser::parseBinary(int minPrecedence) {
  ExprPtr lhs = parseFactor();
  while (true) {
    int prec = binaryPrecedence(cur());
    if (prec == 0 || prec < minPrecedence) return lhs;
    auto e = make(ExprKind::BinOp, lhs->loc);
    e->id = advance().text;
    e->lhs = std::move(lhs);
    e->rhs = parseBinary(prec + 1);
    lhs = done(std::move(e));
  }
}

ExprPtr Parser::parseFactor() {
  if (!atOp("-") && !atOp("+") && !atOp("~")) return parsePower();
  DepthGuard guard(*this);
  auto e = make(ExprKind::UnaryOp, cur().loc);
  e->id = advance().text;
  e->lhs = parseFactor();
  return done(std::move(e));
}

ExprPtr Parser::parsePower() {
  if (atKeyword("await")) fail("'await' expressions are not supported");
  ExprPtr base = parsePrimary();
  if (!atOp("**")) return base;
  DepthGuard guard(*this);  // `1 ** 1 ** ...` recurses through parseFactor
  auto e = make(ExprKind::BinOp, base->loc);
  e->id = advance().text;
  e->lhs = std::move(base);
  e->rhs = parseFactor();  // right-associative, binds tighter than unary on its left
  return done(std::move(e));
}

ExprPtr Parser::parsePrimary() {
  ExprPtr e = parseAtom();
  while (true) {
    if (atOp(".")) {
      advance();
      auto attr = make(ExprKind::Attribute, e->loc);
      attr->id = expectIdentifier("an attribute name after '.'");
      attr->lhs = std::move(e);
      e = done(std::move(attr));
    } else if (atOp("(")) {
      e = parseCall(std::move(e));
    } else if (atOp("[")) {
      e = parseSubscript(std::move(e));
    } else {
      return e;
    }
  }
}

ExprPtr Parser::parseAtom() {
  const Token& t = cur();
  switch (t.kind) {
    case TokenKind::Name: {
      if (t.text == "True" || t.text == "False") {
        auto e = make(ExprKind::Bool, advance().loc);
        e->boolValue = t.text == "True";
        return e;
      }
      if (t.text == "None") return make(ExprKind::None, advance().loc);
      if (isKeyword(t.text)) fail("expected an expression, found " + describe(t));
      auto e = make(ExprKind::Name, t.loc);
      e->id = advance().text;
      return e;
    }
    case TokenKind::Number: {
      if (t.overflow)
        fail("integer literal '" + forMessage(t.text) +
             "' is too large (integers must fit in 64 bits)");
      bool isInt = t.numberKind == NumberKind::Int;
      auto e = make(isInt ? ExprKind::Int : ExprKind::Float, t.loc);
      e->intValue = t.intValue;
      e->floatValue = t.floatValue;
      e->imaginary = t.numberKind == NumberKind::Imaginary;
      advance();
      return e;
    }
    case TokenKind::String:
      return parseStrings();
    case TokenKind::Op:
      if (t.text == "(") return parseParen();
      if (t.text == "[") return parseList();
      if (t.text == "{") return parseDictOrSet();
      if (t.text == "...") return make(ExprKind::Ellipsis, advance().loc);
      break;
    default:
      break;
  }
  fail("expected an expression, found " + describe(t));
}

// The opening bracket is current; a generator/comprehension was detected
// after its first element. Skips to (not past) the matching closer.
ExprPtr Parser::makeComprehension(const Token& open, std::string_view closer) {
  int depth = 0;
  while (true) {
    const Token& t = cur();
    if (atLineEnd()) fail(closeMessage(open, closer));
    if (t.kind == TokenKind::Op && (t.text == "(" || t.text == "[" || t.text == "{")) ++depth;
    if (t.kind == TokenKind::Op && (t.text == ")" || t.text == "]" || t.text == "}")) {
      if (depth == 0) break;
      --depth;
    }
    advance();
  }
  return make(ExprKind::Comprehension, open.loc);
}

ExprPtr Parser::parseParen() {
  const Token& open = cur();
  SourceLoc openLoc = advance().loc;
  if (acceptOp(")")) return done(make(ExprKind::Tuple, openLoc));
  if (atKeyword("yield")) fail("'yield' expressions are not supported");
  ExprPtr first = parseStarOrTest();
  if (atOp(":=")) fail("assignment expressions are not supported");
  if (startsComprehension(cur())) {
    ExprPtr comp = makeComprehension(open, ")");
    expectClose(open, ")");
    return comp;
  }
  if (!atOp(",")) {
    expectClose(open, ")");
    if (first->kind == ExprKind::Starred) failAt("cannot use starred expression here", first->loc);
    return first;
  }
  auto tuple = make(ExprKind::Tuple, openLoc);
  tuple->elts.push_back(std::move(first));
  while (acceptOp(",")) {
    if (atOp(")")) break;
    tuple->elts.push_back(parseStarOrTest());
  }
  expectClose(open, ")");
  return done(std::move(tuple));
}

ExprPtr Parser::parseList() {
  const Token& open = cur();
  SourceLoc openLoc = advance().loc;
  auto list = make(ExprKind::List, openLoc);
  if (acceptOp("]")) return done(std::move(list));
  list->elts.push_back(parseStarOrTest());
  if (startsComprehension(cur())) {
    ExprPtr comp = makeComprehension(open, "]");
    expectClose(open, "]");
    return comp;
  }
  while (acceptOp(",")) {
    if (atOp("]")) break;
    list->elts.push_back(parseStarOrTest());
  }
  expectClose(open, "]");
  return done(std::move(list));
}

ExprPtr Parser::parseDictOrSet() {
  const Token& open = cur();
  SourceLoc openLoc = advance().loc;
  if (acceptOp("}")) return done(make(ExprKind::Dict, openLoc));
  bool isDict = atOp("**");
  ExprPtr first;
  if (!isDict) {
    first = parseStarOrTest();
    isDict = atOp(":");
  }
  auto e = make(isDict ? ExprKind::Dict : ExprKind::Set, openLoc);
  auto dictEntry = [&](ExprPtr key) {
    if (!key && acceptOp("**")) {
      e->keys.push_back(nullptr);
      e->values.push_back(parseBinary(1));
      return;
    }
    if (!key) key = parseTest();
    if (key->kind == ExprKind::Starred)
      failAt("cannot use a starred expression in a dictionary key", key->loc);
    expectOp(":");
    e->keys.push_back(std::move(key));
    e->values.push_back(parseTest());
  };
  if (isDict) {
    dictEntry(std::move(first));
  } else {
    e->elts.push_back(std::move(first));
  }
  if (startsComprehension(cur())) {
    ExprPtr comp = makeComprehension(open, "}");
    expectClose(open, "}");
    return comp;
  }
  while (acceptOp(",")) {
    if (atOp("}")) break;
    if (isDict) {
      dictEntry(nullptr);
    } else {
      e->elts.push_back(parseStarOrTest());
    }
  }
  expectClose(open, "}");
  return done(std::move(e));
}

// Adjacent string literals, concatenated; any f-string piece makes an FStr.
ExprPtr Parser::parseStrings() {
  size_t first = pos_;
  size_t end = pos_;
  bool anyFString = false;
  while (t_[end].kind == TokenKind::String) {
    if (t_[end].isBytes != t_[first].isBytes)
      throw ParseError{"cannot mix bytes and nonbytes literals", t_[end].loc, end};
    anyFString = anyFString || t_[end].isFString;
    ++end;
  }
  SourceLoc loc = t_[first].loc;
  if (!anyFString) {
    auto e = make(ExprKind::Str, loc);
    while (pos_ < end) e->strValue += advance().strValue;
    return e;
  }
  auto e = make(ExprKind::FStr, loc);
  auto addLiteral = [&](const std::string& text) {
    if (text.empty()) return;
    if (!e->fstrParts.empty() && !e->fstrParts.back().expr) {
      e->fstrParts.back().literal += text;
      return;
    }
    FStrPart part;
    part.literal = text;
    e->fstrParts.push_back(std::move(part));
  };
  for (size_t i = first; i < end; ++i) {
    const Token& t = t_[i];
    if (!t.isFString) {
      addLiteral(t.strValue);
      continue;
    }
    for (const FStrTokenPart& piece : t.fstrParts) {
      if (!piece.isField) {
        addLiteral(piece.literal);
        continue;
      }
      if (piece.selfDocumenting) addLiteral(piece.exprText);
      FStrPart part;
      part.expr = parseFStringField(piece, i);
      part.conversion = piece.conversion;
      if (piece.selfDocumenting && piece.conversion == 0 && piece.formatSpec.empty())
        part.conversion = 'r';
      part.formatSpec = piece.formatSpec;
      e->fstrParts.push_back(std::move(part));
    }
  }
  while (pos_ < end) advance();
  return done(std::move(e));
}

ExprPtr Parser::parseFStringField(const FStrTokenPart& part, size_t tokenIndex) {
  const std::vector<Token>& tokens = part.tokens;
  if (tokens.empty() || tokens.back().kind != TokenKind::EndOfFile)
    throw ParseError{"f-string: expecting '}'", part.loc, tokenIndex};
  if (tokens.size() == 1)
    throw ParseError{"f-string: valid expression required before '}'", part.loc, tokenIndex};
  Parser sub(tokens, depth_ + 1, "'}'", true);
  try {
    ExprPtr e = sub.parseWholeExpression();
    heights_[e.get()] = sub.heightOf(e.get());
    return e;
  } catch (const ParseError& error) {
    throw ParseError{error.message, error.loc, tokenIndex};
  }
}

ExprPtr Parser::parseLambda() {
  auto e = make(ExprKind::Lambda, advance().loc);
  parseParams(e->params, ":", false);
  expectOp(":");
  e->lhs = parseTest();
  return done(std::move(e));
}

ExprPtr Parser::parseCall(ExprPtr func) {
  const Token& open = advance();
  auto call = make(ExprKind::Call, func->loc);
  call->lhs = std::move(func);
  bool seenKeyword = false, seenKwUnpack = false;
  while (!atOp(")")) {
    SourceLoc argLoc = cur().loc;
    if (atOp("*")) {
      if (seenKwUnpack) fail("iterable argument unpacking follows keyword argument unpacking");
      auto star = make(ExprKind::Starred, advance().loc);
      star->lhs = parseTest();
      call->elts.push_back(done(std::move(star)));
    } else if (atOp("**")) {
      advance();
      call->keywords.push_back({"", parseTest(), argLoc});
      seenKwUnpack = true;
    } else if (cur().kind == TokenKind::Name && !isKeyword(cur().text) && peekTok().isOp("=")) {
      std::string name = advance().text;
      advance();
      for (const Keyword& k : call->keywords)
        if (k.name == name) failAt("keyword argument repeated: " + name, argLoc);
      call->keywords.push_back({name, parseTest(), argLoc});
      seenKeyword = true;
    } else {
      ExprPtr arg = parseNamedTest();
      if (startsComprehension(cur())) {
        arg = makeComprehension(open, ")");
      } else if (seenKwUnpack) {
        failAt("positional argument follows keyword argument unpacking", argLoc);
      } else if (seenKeyword) {
        failAt("positional argument follows keyword argument", argLoc);
      }
      call->elts.push_back(std::move(arg));
    }
    if (!acceptOp(",")) break;
  }
  expectClose(open, ")");
  return done(std::move(call));
}

ExprPtr Parser::parseSubscript(ExprPtr value) {
  const Token& open = advance();
  auto sub = make(ExprKind::Subscript, value->loc);
  sub->lhs = std::move(value);
  SourceLoc indexLoc = cur().loc;
  ExprPtr first = parseSliceItem();
  if (atOp(",")) {
    auto tuple = make(ExprKind::Tuple, indexLoc);
    tuple->elts.push_back(std::move(first));
    while (acceptOp(",")) {
      if (atOp("]")) break;
      tuple->elts.push_back(parseSliceItem());
    }
    first = done(std::move(tuple));
  }
  expectClose(open, "]");
  sub->rhs = std::move(first);
  return done(std::move(sub));
}

ExprPtr Parser::parseSliceItem() {
  SourceLoc loc = cur().loc;
  if (atOp("*")) {
    auto star = make(ExprKind::Starred, advance().loc);
    star->lhs = parseBinary(1);
    return done(std::move(star));
  }
  ExprPtr lower;
  if (!atOp(":")) {
    lower = parseNamedTest();
    if (!atOp(":")) return lower;
  }
  advance();
  auto slice = make(ExprKind::Slice, loc);
  slice->lhs = std::move(lower);
  auto boundEnds = [&] { return atOp(":") || atOp(",") || atOp("]"); };
  if (!boundEnds()) slice->rhs = parseTest();
  if (acceptOp(":") && !atOp(",") && !atOp("]")) slice->step = parseTest();
  return done(std::move(slice));
}

ExprPtr Parser::parseWholeExpression() {
  if (atEnd()) fail("expected an expression, found " + describe(cur()));
  ExprPtr e = parseStarExpressions();
  if (!atEnd()) fail(fstringField_ ? "f-string: expecting '}'" : "unexpected " + describe(cur()));
  return e;
}

}  // namespace

Module parseModule(const SourceFile& file, DiagnosticEngine& diags,
                   const SourceFile* locationFile) {
  std::vector<Token> tokens = tokenize(file, diags, locationFile);
  return Parser(tokens).parseModule();
}

ExprPtr parseExpressionText(const std::string& text, DiagnosticEngine& diags) {
  auto invalid = [&](const std::string& reason) {
    diags.error({}, "invalid expression '" + forMessage(text) + "': " + reason);
    return nullptr;
  };
  DiagnosticEngine lexDiags;
  std::vector<Token> tokens = tokenizeExpression(text, lexDiags);
  if (lexDiags.hasErrors()) return invalid(lexDiags.all().front().message);
  try {
    return Parser(tokens, 0, "end of input").parseWholeExpression();
  } catch (const ParseError& error) {
    return invalid(error.message);
  }
}

}  // namespace tilesched::py
