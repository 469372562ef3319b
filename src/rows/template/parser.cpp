// Recursive-descent parser for Jinja2 3.1 template syntax (jinja2/parser.py): statements, expressions with
// Jinja2's precedence, whitespace-controlled data, and Jinja2's syntax error messages.
#include "rows/template/parser.h"

#include <algorithm>
#include <set>
#include <string>
#include <utility>

#include "rows/template/failure.h"

namespace openrecipes::rows::template_engine {
namespace {

std::string repr_str(const std::string& s) {
  // Python repr of a plain identifier-like string (enough for messages).
  if (s.find('\'') != std::string::npos && s.find('"') == std::string::npos) return "\"" + s + "\"";
  return "'" + s + "'";
}

class Parser {
 public:
  Parser(std::vector<Token> toks, std::size_t max_depth) : toks_(std::move(toks)), max_depth_(max_depth) {}

  Body parse() { return subparse(nullptr); }

 private:
  std::vector<Token> toks_;
  std::size_t i_ = 0;
  std::size_t max_depth_;
  std::size_t depth_ = 0;
  std::vector<std::string> tag_stack_;
  std::vector<std::vector<std::string>> end_token_stack_;

  struct DepthGuard {
    Parser& p;
    explicit DepthGuard(Parser& parser) : p(parser) {
      if (++p.depth_ > p.max_depth_)
        p.fail("template nesting is deeper than max_depth (" + std::to_string(p.max_depth_) + ")",
               PyError::LimitExceeded);
    }
    ~DepthGuard() { --p.depth_; }
  };

  const Token& cur() const { return toks_[i_]; }
  const Token& look() const { return toks_[std::min(i_ + 1, toks_.size() - 1)]; }
  Token next() {
    Token t = toks_[i_];
    if (i_ + 1 < toks_.size()) ++i_;
    return t;
  }
  bool at(Tok t) const { return cur().type == t; }
  bool at_name(std::string_view n) const { return cur().type == Tok::Name && cur().text == n; }
  bool skip_if(Tok t) {
    if (at(t)) {
      next();
      return true;
    }
    return false;
  }
  bool skip_name(std::string_view n) {
    if (at_name(n)) {
      next();
      return true;
    }
    return false;
  }

  [[noreturn]] void fail(const std::string& msg, PyError type = PyError::TemplateSyntaxError) const {
    fail_at(msg, cur(), type);
  }
  [[noreturn]] static void fail_at(const std::string& msg, const Token& t,
                                   PyError type = PyError::TemplateSyntaxError) {
    throw Failure{type, msg, t.line, t.col};
  }
  [[noreturn]] static void fail_line(const std::string& msg, std::uint32_t line, std::uint32_t col,
                                     PyError type = PyError::TemplateSyntaxError) {
    throw Failure{type, msg, line, col};
  }

  Token expect(Tok t) {
    if (!at(t)) {
      if (at(Tok::Eof)) fail("unexpected end of template, expected " + repr_str(describe_tok(t)) + ".");
      fail("expected token " + repr_str(describe_tok(t)) + ", got " + repr_str(describe_token(cur())));
    }
    return next();
  }
  Token expect_name(std::string_view n) {
    if (!at_name(n)) {
      if (at(Tok::Eof)) fail("unexpected end of template, expected " + repr_str(std::string(n)) + ".");
      fail("expected token " + repr_str(std::string(n)) + ", got " + repr_str(describe_token(cur())));
    }
    return next();
  }

  template <class T>
  std::unique_ptr<T> node(const Token& at_token, T* raw) {
    std::unique_ptr<T> p(raw);
    p->line = at_token.line;
    p->col = at_token.col;
    return p;
  }
  void set_height(Expr& e, std::initializer_list<const Expr*> kids) {
    std::uint32_t h = 0;
    for (const Expr* k : kids)
      if (k != nullptr) h = std::max(h, k->height);
    e.height = h + 1;
    if (e.height > max_depth_)
      fail_line("expression nesting is deeper than max_depth (" + std::to_string(max_depth_) + ")", e.line, e.col,
                PyError::LimitExceeded);
  }
  void check_height(Expr& e, std::uint32_t child_max) {
    e.height = child_max + 1;
    if (e.height > max_depth_)
      fail_line("expression nesting is deeper than max_depth (" + std::to_string(max_depth_) + ")", e.line, e.col,
                PyError::LimitExceeded);
  }
  void set_height_list(Expr& e, const std::vector<ExprPtr>& kids, std::uint32_t extra = 0) {
    std::uint32_t h = extra;
    for (const auto& k : kids) h = std::max(h, k->height);
    e.height = h + 1;
    if (e.height > max_depth_)
      fail_line("expression nesting is deeper than max_depth (" + std::to_string(max_depth_) + ")", e.line, e.col,
                PyError::LimitExceeded);
  }
  std::uint32_t args_height(const CallArgs& a) const {
    std::uint32_t h = 0;
    for (const auto& x : a.args) h = std::max(h, x->height);
    for (const auto& kv : a.kwargs) h = std::max(h, kv.second->height);
    if (a.dyn_args) h = std::max(h, a.dyn_args->height);
    if (a.dyn_kwargs) h = std::max(h, a.dyn_kwargs->height);
    return h;
  }

  // ---- errors for unknown tags / eof (Parser._fail_ut_eof) ----
  [[noreturn]] void fail_ut_eof(const std::string* name, const std::vector<std::vector<std::string>>& stack,
                                const Token& where) const {
    std::set<std::string> expected;
    for (const auto& exprs : stack)
      for (const auto& e : exprs) expected.insert(e);
    std::string currently_looking;
    if (!stack.empty()) {
      for (std::size_t k = 0; k < stack.back().size(); ++k) {
        if (k) currently_looking += " or ";
        currently_looking += repr_str(stack.back()[k]);
      }
    }
    std::string message =
        name == nullptr ? "Unexpected end of template." : "Encountered unknown tag " + repr_str(*name) + ".";
    if (!currently_looking.empty()) {
      if (name != nullptr && expected.count(*name))
        message += " You probably made a nesting mistake. Jinja is expecting this tag, but currently looking for " +
                   currently_looking + ".";
      else
        message += " Jinja was looking for the following tags: " + currently_looking + ".";
    }
    if (!tag_stack_.empty())
      message += " The innermost block that needs to be closed is " + repr_str(tag_stack_.back()) + ".";
    fail_at(message, where);
  }

  // ---- statements ----
  Body subparse(const std::vector<std::string>* end_tokens) {
    Body body;
    std::unique_ptr<OutputStmt> out;
    if (end_tokens != nullptr) end_token_stack_.push_back(*end_tokens);
    struct Pop {
      Parser& p;
      bool active;
      ~Pop() {
        if (active) p.end_token_stack_.pop_back();
      }
    } pop{*this, end_tokens != nullptr};
    auto flush = [&] {
      if (out) {
        body.push_back(std::move(out));
        out.reset();
      }
    };
    auto ensure_out = [&](const Token& t) {
      if (!out) out = node(t, new OutputStmt());
    };
    while (!at(Tok::Eof)) {
      const Token& t = cur();
      if (t.type == Tok::Data) {
        ensure_out(t);
        OutputPart part;
        part.data = t.text;
        out->parts.push_back(std::move(part));
        next();
      } else if (t.type == Tok::VariableBegin) {
        Token begin = next();
        ensure_out(begin);
        OutputPart part;
        part.expr = parse_tuple(false, true, nullptr, false);
        out->parts.push_back(std::move(part));
        expect(Tok::VariableEnd);
      } else if (t.type == Tok::BlockBegin) {
        flush();
        next();
        if (end_tokens != nullptr && at(Tok::Name) &&
            std::find(end_tokens->begin(), end_tokens->end(), cur().text) != end_tokens->end())
          return body;
        parse_statement(body);
        expect(Tok::BlockEnd);
      } else {
        fail("internal parsing error");
      }
    }
    flush();
    return body;
  }

  Body parse_statements(const std::vector<std::string>& end_tokens, bool drop_needle) {
    skip_if(Tok::Colon);
    expect(Tok::BlockEnd);
    Body result = subparse(&end_tokens);
    if (at(Tok::Eof)) {
      auto stack = end_token_stack_;
      stack.push_back(end_tokens);
      fail_ut_eof(nullptr, stack, cur());
    }
    if (drop_needle) next();
    return result;
  }

  void parse_statement(Body& body) {
    DepthGuard guard(*this);
    const Token tok = cur();
    if (tok.type != Tok::Name) fail_at("tag name expected", tok);
    const std::string& n = tok.text;
    static const std::set<std::string> keywords = {"for",     "if",     "block",  "extends",  "print",     "macro",
                                                   "include", "from",   "import", "set",      "with",      "autoescape",
                                                   "call",    "filter", "break",  "continue", "generation"};
    if (!keywords.count(n)) fail_ut_eof(&n, end_token_stack_, tok);
    tag_stack_.push_back(n);
    struct PopTag {
      Parser& p;
      ~PopTag() { p.tag_stack_.pop_back(); }
    } pop{*this};
    if (n == "for") return body.push_back(parse_for());
    if (n == "if") return body.push_back(parse_if());
    if (n == "set") return body.push_back(parse_set());
    if (n == "macro") return body.push_back(parse_macro());
    if (n == "call") return body.push_back(parse_call_block());
    if (n == "filter") return body.push_back(parse_filter_block());
    if (n == "with") return body.push_back(parse_with());
    if (n == "block") return body.push_back(parse_block());
    if (n == "print") return body.push_back(parse_print());
    if (n == "generation") return body.push_back(parse_generation());
    if (n == "break" || n == "continue") {
      Token t = next();
      body.push_back(node(t, new SimpleStmt(n == "break" ? StmtKind::Break : StmtKind::Continue)));
      return;
    }
    if (n == "autoescape")
      fail_at("{% autoescape %} blocks are not supported by this engine (chat templates render without escaping)", tok,
              PyError::Unsupported);
    // extends / include / import / from: parsed like Jinja2, fail when run (no loader in the sandbox).
    Token t = next();
    auto fa = node(t, new FileAccessStmt());
    fa->tag = n;
    parse_expression(true);
    if (n == "include") {
      if (at_name("ignore") && look().type == Tok::Name && look().text == "missing") {
        next();
        next();
      }
      parse_import_context();
    } else if (n == "import") {
      expect_name("as");
      expect(Tok::Name);
      parse_import_context();
    } else if (n == "from") {
      expect_name("import");
      bool first = true;
      for (;;) {
        if (!first) expect(Tok::Comma);
        first = false;
        if (at(Tok::Name)) {
          if ((at_name("with") || at_name("without")) && look().type == Tok::Name && look().text == "context") {
            next();
            next();
            break;
          }
          next();
          if (skip_name("as")) expect(Tok::Name);
          if ((at_name("with") || at_name("without")) && look().type == Tok::Name && look().text == "context") {
            next();
            next();
            break;
          }
          if (!at(Tok::Comma)) break;
        } else {
          expect(Tok::Name);
        }
      }
    }
    body.push_back(std::move(fa));
  }

  void parse_import_context() {
    if ((at_name("with") || at_name("without")) && look().type == Tok::Name && look().text == "context") {
      next();
      next();
    }
  }

  StmtPtr parse_for() {
    Token t = expect_name("for");
    auto f = node(t, new ForStmt());
    std::vector<std::string> in_rule = {"in"};
    f->target = parse_assign_target(true, false, &in_rule, false);
    expect_name("in");
    std::vector<std::string> rec_rule = {"recursive"};
    f->iter = parse_tuple(false, false, &rec_rule, false);
    if (skip_name("if")) f->filter = parse_expression(true);
    f->recursive = skip_name("recursive");
    f->body = parse_statements({"endfor", "else"}, false);
    if (next().text == "endfor") {
      // no else
    } else {
      f->else_body = parse_statements({"endfor"}, true);
    }
    return f;
  }

  StmtPtr parse_if() {
    Token t = expect_name("if");
    auto s = node(t, new IfStmt());
    for (;;) {
      ExprPtr test = parse_tuple(false, false, nullptr, false);
      Body body = parse_statements({"elif", "else", "endif"}, false);
      s->branches.emplace_back(std::move(test), std::move(body));
      Token tok = next();
      if (tok.type == Tok::Name && tok.text == "elif") continue;
      if (tok.type == Tok::Name && tok.text == "else") s->else_body = parse_statements({"endif"}, true);
      break;
    }
    return s;
  }

  StmtPtr parse_set() {
    Token t = next();
    ExprPtr target = parse_assign_target(true, false, nullptr, true);
    if (skip_if(Tok::Assign)) {
      auto a = node(t, new AssignStmt());
      a->target = std::move(target);
      a->value = parse_tuple(false, true, nullptr, false);
      return a;
    }
    auto b = node(t, new AssignBlockStmt());
    b->target = std::move(target);
    b->filter = parse_filter(nullptr, false);
    b->body = parse_statements({"endset"}, true);
    return b;
  }

  void parse_signature(MacroDef& def) {
    expect(Tok::LParen);
    while (!at(Tok::RParen)) {
      if (!def.arg_names.empty()) expect(Tok::Comma);
      Token name = expect(Tok::Name);
      if (skip_if(Tok::Assign)) {
        def.defaults.push_back(parse_expression(true));
      } else if (!def.defaults.empty()) {
        fail("non-default argument follows default argument");
      }
      def.arg_names.push_back(name.text);
    }
    expect(Tok::RParen);
  }

  StmtPtr parse_macro() {
    Token t = next();
    auto m = node(t, new MacroStmt());
    m->def = std::make_shared<MacroDef>();
    Token name = expect(Tok::Name);
    m->def->name = name.text;
    parse_signature(*m->def);
    m->def->body = parse_statements({"endmacro"}, true);
    return m;
  }

  StmtPtr parse_call_block() {
    Token t = next();
    auto c = node(t, new CallBlockStmt());
    c->caller = std::make_shared<MacroDef>();
    if (at(Tok::LParen)) parse_signature(*c->caller);
    ExprPtr call = parse_expression(true);
    if (call->kind != ExprKind::Call) fail_at("expected call", t);
    c->call.reset(static_cast<CallExpr*>(call.release()));
    c->caller->body = parse_statements({"endcall"}, true);
    return c;
  }

  StmtPtr parse_generation() {
    // transformers' AssistantTracker: CallBlock(call_method("_generation_support"), [], [], body)
    Token t = next();
    auto c = node(t, new CallBlockStmt());
    c->caller = std::make_shared<MacroDef>();
    c->caller->body = parse_statements({"endgeneration"}, true);
    return c;
  }

  StmtPtr parse_filter_block() {
    Token t = next();
    auto f = node(t, new FilterBlockStmt());
    f->filter = parse_filter(nullptr, true);
    f->body = parse_statements({"endfilter"}, true);
    return f;
  }

  StmtPtr parse_with() {
    Token t = next();
    auto w = node(t, new WithStmt());
    while (!at(Tok::BlockEnd)) {
      if (!w->targets.empty()) expect(Tok::Comma);
      ExprPtr target = parse_assign_target(true, false, nullptr, false);
      set_ctx(*target, NameCtx::Param);
      w->targets.push_back(std::move(target));
      expect(Tok::Assign);
      w->values.push_back(parse_expression(true));
    }
    w->body = parse_statements({"endwith"}, true);
    return w;
  }

  StmtPtr parse_block() {
    Token t = next();
    auto b = node(t, new BlockStmt());
    b->name = expect(Tok::Name).text;
    if (at_name("scoped"))
      fail("scoped blocks are not supported by this engine (chat templates do not use template inheritance)",
           PyError::Unsupported);
    bool required = skip_name("required");
    if (at(Tok::Sub))
      fail(
          "Block names in Jinja have to be valid Python identifiers and may not contain hyphens, use an underscore "
          "instead.");
    b->body = parse_statements({"endblock"}, true);
    if (required) {
      for (const auto& s : b->body) {
        bool ok = false;
        if (s->kind == StmtKind::Output) {
          ok = true;
          for (const auto& p : static_cast<OutputStmt&>(*s).parts) {
            if (p.expr)
              ok = false;
            else
              for (char c : p.data)
                if (!(c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v')) ok = false;
          }
        }
        if (!ok) fail("Required blocks can only contain comments or whitespace");
      }
    }
    skip_name(b->name);
    return b;
  }

  StmtPtr parse_print() {
    Token t = next();
    auto o = node(t, new OutputStmt());
    bool first = true;
    while (!at(Tok::BlockEnd)) {
      if (!first) expect(Tok::Comma);
      first = false;
      OutputPart part;
      part.expr = parse_expression(true);
      o->parts.push_back(std::move(part));
    }
    return o;
  }

  // ---- assignment targets ----
  static void set_ctx(Expr& e, NameCtx ctx) {
    if (e.kind == ExprKind::Name) static_cast<NameExpr&>(e).ctx = ctx;
    if (e.kind == ExprKind::Tuple || e.kind == ExprKind::List) {
      auto& s = static_cast<SeqExpr&>(e);
      s.ctx = ctx;
      for (auto& it : s.items) set_ctx(*it, ctx);
    }
  }
  static bool can_assign(const Expr& e) {
    if (e.kind == ExprKind::Name || e.kind == ExprKind::NSRef) return true;
    if (e.kind == ExprKind::Tuple) {
      for (const auto& it : static_cast<const SeqExpr&>(e).items)
        if (!can_assign(*it)) return false;
      return true;
    }
    return false;
  }
  static std::string node_type_name(const Expr& e) {
    switch (e.kind) {
      case ExprKind::Const:
        return "const";
      case ExprKind::List:
        return "list";
      case ExprKind::Tuple:
        return "tuple";
      case ExprKind::Dict:
        return "dict";
      case ExprKind::Getattr:
        return "getattr";
      case ExprKind::Getitem:
        return "getitem";
      case ExprKind::Call:
        return "call";
      case ExprKind::Filter:
        return "filter";
      case ExprKind::Test:
        return "test";
      case ExprKind::Concat:
        return "concat";
      case ExprKind::Compare:
        return "compare";
      case ExprKind::CondExpr:
        return "condexpr";
      case ExprKind::And:
        return "and";
      case ExprKind::Or:
        return "or";
      default:
        return "expr";
    }
  }

  ExprPtr parse_assign_target(bool with_tuple, bool name_only, const std::vector<std::string>* extra_end,
                              bool with_namespace) {
    ExprPtr target;
    if (with_namespace && look().type == Tok::Dot) {
      Token n = expect(Tok::Name);
      next();
      Token attr = expect(Tok::Name);
      auto ns = node(n, new NSRefExpr());
      ns->name = n.text;
      ns->attr = attr.text;
      target = std::move(ns);
    } else if (name_only) {
      Token n = expect(Tok::Name);
      auto ne = node(n, new NameExpr());
      ne->name = n.text;
      ne->ctx = NameCtx::Store;
      target = std::move(ne);
    } else {
      target = with_tuple ? parse_tuple(true, true, extra_end, false) : parse_primary();
      set_ctx(*target, NameCtx::Store);
    }
    if (!can_assign(*target))
      fail_line("can't assign to " + repr_str(node_type_name(*target)), target->line, target->col);
    return target;
  }

  // ---- expressions ----
  ExprPtr parse_expression(bool with_condexpr) { return with_condexpr ? parse_condexpr() : parse_or(); }

  ExprPtr parse_condexpr() {
    DepthGuard guard(*this);
    Token start = cur();
    ExprPtr expr1 = parse_or();
    while (skip_name("if")) {
      ExprPtr expr2 = parse_or();
      ExprPtr expr3;
      if (skip_name("else")) expr3 = parse_condexpr();
      auto c = node(start, new CondExpr());
      c->test = std::move(expr2);
      c->expr1 = std::move(expr1);
      c->expr2 = std::move(expr3);
      set_height(*c, {c->test.get(), c->expr1.get(), c->expr2.get()});
      expr1 = std::move(c);
      start = cur();
    }
    return expr1;
  }

  ExprPtr parse_or() {
    Token start = cur();
    ExprPtr left = parse_and();
    while (skip_name("or")) {
      ExprPtr right = parse_and();
      auto o = node(start, new LogicExpr(ExprKind::Or));
      o->left = std::move(left);
      o->right = std::move(right);
      set_height(*o, {o->left.get(), o->right.get()});
      left = std::move(o);
    }
    return left;
  }

  ExprPtr parse_and() {
    Token start = cur();
    ExprPtr left = parse_not();
    while (skip_name("and")) {
      ExprPtr right = parse_not();
      auto a = node(start, new LogicExpr(ExprKind::And));
      a->left = std::move(left);
      a->right = std::move(right);
      set_height(*a, {a->left.get(), a->right.get()});
      left = std::move(a);
    }
    return left;
  }

  ExprPtr parse_not() {
    if (at_name("not")) {
      DepthGuard guard(*this);
      Token t = next();
      auto u = node(t, new UnaryExpr());
      u->op = UnOp::Not;
      u->operand = parse_not();
      set_height(*u, {u->operand.get()});
      return u;
    }
    return parse_compare();
  }

  ExprPtr parse_compare() {
    Token start = cur();
    ExprPtr expr = parse_math1();
    std::vector<std::pair<CmpOp, ExprPtr>> ops;
    for (;;) {
      Tok t = cur().type;
      if (t == Tok::Eq || t == Tok::Ne || t == Tok::Lt || t == Tok::LtEq || t == Tok::Gt || t == Tok::GtEq) {
        next();
        CmpOp op = t == Tok::Eq     ? CmpOp::Eq
                   : t == Tok::Ne   ? CmpOp::Ne
                   : t == Tok::Lt   ? CmpOp::Lt
                   : t == Tok::LtEq ? CmpOp::LtEq
                   : t == Tok::Gt   ? CmpOp::Gt
                                    : CmpOp::GtEq;
        ops.emplace_back(op, parse_math1());
      } else if (skip_name("in")) {
        ops.emplace_back(CmpOp::In, parse_math1());
      } else if (at_name("not") && look().type == Tok::Name && look().text == "in") {
        next();
        next();
        ops.emplace_back(CmpOp::NotIn, parse_math1());
      } else {
        break;
      }
    }
    if (ops.empty()) return expr;
    auto c = node(start, new CompareExpr());
    c->first = std::move(expr);
    c->ops = std::move(ops);
    std::uint32_t h = c->first->height;
    for (auto& o : c->ops) h = std::max(h, o.second->height);
    check_height(*c, h);
    return c;
  }

  ExprPtr binary(const Token& start, BinOp op, ExprPtr l, ExprPtr r) {
    auto b = node(start, new BinaryExpr());
    b->op = op;
    b->left = std::move(l);
    b->right = std::move(r);
    set_height(*b, {b->left.get(), b->right.get()});
    return b;
  }

  ExprPtr parse_math1() {
    Token start = cur();
    ExprPtr left = parse_concat();
    while (at(Tok::Add) || at(Tok::Sub)) {
      BinOp op = at(Tok::Add) ? BinOp::Add : BinOp::Sub;
      next();
      ExprPtr right = parse_concat();
      left = binary(start, op, std::move(left), std::move(right));
      start = cur();
    }
    return left;
  }

  ExprPtr parse_concat() {
    Token start = cur();
    std::vector<ExprPtr> args;
    args.push_back(parse_math2());
    while (at(Tok::Tilde)) {
      next();
      args.push_back(parse_math2());
    }
    if (args.size() == 1) return std::move(args[0]);
    auto c = node(start, new ConcatExpr());
    c->items = std::move(args);
    set_height_list(*c, c->items);
    return c;
  }

  ExprPtr parse_math2() {
    Token start = cur();
    ExprPtr left = parse_pow();
    while (at(Tok::Mul) || at(Tok::Div) || at(Tok::FloorDiv) || at(Tok::Mod)) {
      Tok t = next().type;
      BinOp op = t == Tok::Mul        ? BinOp::Mul
                 : t == Tok::Div      ? BinOp::Div
                 : t == Tok::FloorDiv ? BinOp::FloorDiv
                                      : BinOp::Mod;
      ExprPtr right = parse_pow();
      left = binary(start, op, std::move(left), std::move(right));
      start = cur();
    }
    return left;
  }

  ExprPtr parse_pow() {
    Token start = cur();
    ExprPtr left = parse_unary(true);
    while (at(Tok::Pow)) {
      next();
      ExprPtr right = parse_unary(true);
      left = binary(start, BinOp::Pow, std::move(left), std::move(right));
      start = cur();
    }
    return left;
  }

  ExprPtr parse_unary(bool with_filter) {
    DepthGuard guard(*this);
    Token t = cur();
    ExprPtr n;
    if (t.type == Tok::Sub || t.type == Tok::Add) {
      next();
      auto u = node(t, new UnaryExpr());
      u->op = t.type == Tok::Sub ? UnOp::Neg : UnOp::Pos;
      u->operand = parse_unary(false);
      set_height(*u, {u->operand.get()});
      n = std::move(u);
    } else {
      n = parse_primary();
    }
    n = parse_postfix(std::move(n));
    if (with_filter) n = parse_filter_expr(std::move(n));
    return n;
  }

  ExprPtr parse_primary() {
    DepthGuard guard(*this);
    const Token t = cur();
    if (t.type == Tok::Name) {
      next();
      if (t.text == "true" || t.text == "false" || t.text == "True" || t.text == "False") {
        auto c = node(t, new ConstExpr());
        c->type = ConstExpr::Type::Bool;
        c->b = t.text == "true" || t.text == "True";
        return c;
      }
      if (t.text == "none" || t.text == "None") {
        auto c = node(t, new ConstExpr());
        c->type = ConstExpr::Type::None;
        return c;
      }
      auto n = node(t, new NameExpr());
      n->name = t.text;
      return n;
    }
    if (t.type == Tok::String) {
      next();
      auto c = node(t, new ConstExpr());
      c->type = ConstExpr::Type::Str;
      c->s = t.text;
      while (at(Tok::String)) c->s += next().text;
      return c;
    }
    if (t.type == Tok::Integer || t.type == Tok::Float) {
      next();
      auto c = node(t, new ConstExpr());
      if (t.type == Tok::Integer) {
        c->type = ConstExpr::Type::Int;
        c->i = t.ival;
      } else {
        c->type = ConstExpr::Type::Float;
        c->f = t.fval;
      }
      return c;
    }
    if (t.type == Tok::LParen) {
      next();
      ExprPtr e = parse_tuple(false, true, nullptr, true);
      expect(Tok::RParen);
      return e;
    }
    if (t.type == Tok::LBracket) return parse_list();
    if (t.type == Tok::LBrace) return parse_dict();
    fail_at("unexpected " + repr_str(describe_token(t)), t);
  }

  bool is_tuple_end(const std::vector<std::string>* extra_end) const {
    if (at(Tok::VariableEnd) || at(Tok::BlockEnd) || at(Tok::RParen)) return true;
    if (extra_end != nullptr && at(Tok::Name))
      return std::find(extra_end->begin(), extra_end->end(), cur().text) != extra_end->end();
    return false;
  }

  ExprPtr parse_tuple(bool simplified, bool with_condexpr, const std::vector<std::string>* extra_end,
                      bool explicit_parentheses) {
    Token start = cur();
    std::vector<ExprPtr> args;
    bool is_tuple = false;
    for (;;) {
      if (!args.empty()) expect(Tok::Comma);
      if (is_tuple_end(extra_end)) break;
      if (simplified)
        args.push_back(parse_primary());
      else
        args.push_back(parse_expression(with_condexpr));
      if (at(Tok::Comma))
        is_tuple = true;
      else
        break;
    }
    if (!is_tuple) {
      if (!args.empty()) return std::move(args[0]);
      if (!explicit_parentheses) fail("Expected an expression, got " + repr_str(describe_token(cur())));
    }
    auto t = node(start, new SeqExpr(ExprKind::Tuple));
    t->items = std::move(args);
    set_height_list(*t, t->items);
    return t;
  }

  ExprPtr parse_list() {
    Token t = expect(Tok::LBracket);
    auto l = node(t, new SeqExpr(ExprKind::List));
    while (!at(Tok::RBracket)) {
      if (!l->items.empty()) expect(Tok::Comma);
      if (at(Tok::RBracket)) break;
      l->items.push_back(parse_expression(true));
    }
    expect(Tok::RBracket);
    set_height_list(*l, l->items);
    return l;
  }

  ExprPtr parse_dict() {
    Token t = expect(Tok::LBrace);
    auto d = node(t, new DictExpr());
    std::uint32_t h = 0;
    while (!at(Tok::RBrace)) {
      if (!d->items.empty()) expect(Tok::Comma);
      if (at(Tok::RBrace)) break;
      ExprPtr key = parse_expression(true);
      expect(Tok::Colon);
      ExprPtr value = parse_expression(true);
      h = std::max({h, key->height, value->height});
      d->items.emplace_back(std::move(key), std::move(value));
    }
    expect(Tok::RBrace);
    check_height(*d, h);
    return d;
  }

  ExprPtr parse_postfix(ExprPtr n) {
    for (;;) {
      if (at(Tok::Dot) || at(Tok::LBracket))
        n = parse_subscript(std::move(n));
      else if (at(Tok::LParen))
        n = parse_call(std::move(n));
      else
        break;
    }
    return n;
  }

  ExprPtr parse_filter_expr(ExprPtr n) {
    for (;;) {
      if (at(Tok::Pipe))
        n = parse_filter(std::move(n), false);
      else if (at_name("is"))
        n = parse_test(std::move(n));
      else if (at(Tok::LParen))
        n = parse_call(std::move(n));
      else
        break;
    }
    return n;
  }

  ExprPtr parse_subscript(ExprPtr n) {
    Token t = next();
    if (t.type == Tok::Dot) {
      Token attr = cur();
      next();
      if (attr.type == Tok::Name) {
        auto g = node(t, new GetattrExpr());
        g->obj = std::move(n);
        g->attr = attr.text;
        set_height(*g, {g->obj.get()});
        return g;
      }
      if (attr.type != Tok::Integer) fail_at("expected name or number", attr);
      auto c = node(attr, new ConstExpr());
      c->type = ConstExpr::Type::Int;
      c->i = attr.ival;
      auto g = node(t, new GetitemExpr());
      g->obj = std::move(n);
      g->arg = std::move(c);
      set_height(*g, {g->obj.get(), g->arg.get()});
      return g;
    }
    // '['
    std::vector<ExprPtr> args;
    while (!at(Tok::RBracket)) {
      if (!args.empty()) expect(Tok::Comma);
      args.push_back(parse_subscribed());
    }
    expect(Tok::RBracket);
    auto g = node(t, new GetitemExpr());
    g->obj = std::move(n);
    if (args.size() == 1) {
      g->arg = std::move(args[0]);
    } else {
      auto tup = node(t, new SeqExpr(ExprKind::Tuple));
      tup->items = std::move(args);
      set_height_list(*tup, tup->items);
      g->arg = std::move(tup);
    }
    set_height(*g, {g->obj.get(), g->arg.get()});
    return g;
  }

  ExprPtr parse_subscribed() {
    Token start = cur();
    std::vector<ExprPtr> parts;
    if (at(Tok::Colon)) {
      next();
      parts.emplace_back();
    } else {
      ExprPtr e = parse_expression(true);
      if (!at(Tok::Colon)) return e;
      next();
      parts.push_back(std::move(e));
    }
    if (at(Tok::Colon))
      parts.emplace_back();
    else if (!at(Tok::RBracket) && !at(Tok::Comma))
      parts.push_back(parse_expression(true));
    else
      parts.emplace_back();
    if (at(Tok::Colon)) {
      next();
      if (!at(Tok::RBracket) && !at(Tok::Comma))
        parts.push_back(parse_expression(true));
      else
        parts.emplace_back();
    } else {
      parts.emplace_back();
    }
    auto s = node(start, new SliceExpr());
    s->start = std::move(parts[0]);
    s->stop = std::move(parts[1]);
    s->step = std::move(parts[2]);
    set_height(*s, {s->start.get(), s->stop.get(), s->step.get()});
    return s;
  }

  CallArgs parse_call_args() {
    Token t = expect(Tok::LParen);
    CallArgs a;
    bool require_comma = false;
    auto ensure = [&](bool ok) {
      if (!ok) fail_at("invalid syntax for function call expression", t);
    };
    while (!at(Tok::RParen)) {
      if (require_comma) {
        expect(Tok::Comma);
        if (at(Tok::RParen)) break;
      }
      if (at(Tok::Mul)) {
        ensure(!a.dyn_args && !a.dyn_kwargs);
        next();
        a.dyn_args = parse_expression(true);
      } else if (at(Tok::Pow)) {
        ensure(!a.dyn_kwargs);
        next();
        a.dyn_kwargs = parse_expression(true);
      } else if (at(Tok::Name) && look().type == Tok::Assign) {
        ensure(!a.dyn_kwargs);
        std::string key = next().text;
        next();
        a.kwargs.emplace_back(key, parse_expression(true));
      } else {
        ensure(!a.dyn_args && !a.dyn_kwargs && a.kwargs.empty());
        a.args.push_back(parse_expression(true));
      }
      require_comma = true;
    }
    expect(Tok::RParen);
    return a;
  }

  ExprPtr parse_call(ExprPtr n) {
    Token t = cur();
    auto c = node(t, new CallExpr());
    c->args = parse_call_args();
    c->fn = std::move(n);
    std::uint32_t h = std::max(c->fn->height, args_height(c->args));
    check_height(*c, h);
    return c;
  }

  ExprPtr parse_filter(ExprPtr n, bool start_inline) {
    while (at(Tok::Pipe) || start_inline) {
      if (!start_inline) next();
      Token t = expect(Tok::Name);
      std::string name = t.text;
      while (at(Tok::Dot)) {
        next();
        name += "." + expect(Tok::Name).text;
      }
      auto f = node(t, new FilterExpr(ExprKind::Filter));
      f->name = name;
      if (at(Tok::LParen)) f->args = parse_call_args();
      f->node = std::move(n);
      std::uint32_t h = std::max(f->node ? f->node->height : 0u, args_height(f->args));
      check_height(*f, h);
      n = std::move(f);
      start_inline = false;
    }
    return n;
  }

  ExprPtr parse_test(ExprPtr n) {
    Token t = next();  // 'is'
    bool negated = skip_name("not");
    Token nm = expect(Tok::Name);
    std::string name = nm.text;
    while (at(Tok::Dot)) {
      next();
      name += "." + expect(Tok::Name).text;
    }
    auto f = node(t, new FilterExpr(ExprKind::Test));
    f->name = name;
    if (at(Tok::LParen)) {
      f->args = parse_call_args();
    } else if ((at(Tok::Name) || at(Tok::String) || at(Tok::Integer) || at(Tok::Float) || at(Tok::LParen) ||
                at(Tok::LBracket) || at(Tok::LBrace)) &&
               !at_name("else") && !at_name("or") && !at_name("and")) {
      if (at_name("is")) fail("You cannot chain multiple tests with is");
      ExprPtr arg = parse_primary();
      arg = parse_postfix(std::move(arg));
      f->args.args.push_back(std::move(arg));
    }
    f->node = std::move(n);
    std::uint32_t h = std::max(f->node->height, args_height(f->args));
    check_height(*f, h);
    if (!negated) return f;
    auto u = node(t, new UnaryExpr());
    u->op = UnOp::Not;
    u->operand = std::move(f);
    set_height(*u, {u->operand.get()});
    return u;
  }
};

}  // namespace

Body parse_template(std::vector<Token> tokens, std::size_t max_depth) {
  Parser p(std::move(tokens), max_depth);
  return p.parse();
}

}  // namespace openrecipes::rows::template_engine
