// The site as files, staged and swapped in (site/site_writer.h).
#include "site/site_writer.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <mutex>
#include <random>
#include <regex>
#include <set>

#include <tbb/parallel_for.h>

#include <fmt/format.h>

#include "core/error.h"
#include "core/files.h"
#include "core/json_limits.h"
#include "core/sha256.h"
#include "core/text.h"
#include "core/yaml.h"
#include "site/board_entries.h"
#include "site/csv_export.h"
#include "site/pages.h"
#include "site/recipes_export.h"
#include "site/site_files.h"

namespace openrecipes::site {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

volatile sig_atomic_t g_stop_signal = 0;
extern "C" void note_stop_signal(int sig) { g_stop_signal = sig; }

// While it lives, SIGINT, SIGTERM and SIGHUP only note themselves (the writer checks between files); its
// destructor puts the old handlers back and, when one arrived, raises it again so it takes its course.
class StopSignals {
 public:
  StopSignals() {
    g_stop_signal = 0;
    struct sigaction sa {};
    sa.sa_handler = note_stop_signal;
    sigemptyset(&sa.sa_mask);
    for (std::size_t i = 0; i < 3; ++i) {
      sigaction(kSignals[i], nullptr, &old_[i]);
      if (old_[i].sa_handler != SIG_IGN) sigaction(kSignals[i], &sa, nullptr);
    }
  }
  ~StopSignals() {
    for (std::size_t i = 0; i < 3; ++i) sigaction(kSignals[i], &old_[i], nullptr);
    if (g_stop_signal) raise(g_stop_signal);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
  static bool stopped() { return g_stop_signal != 0; }

 private:
  static constexpr int kSignals[3] = {SIGINT, SIGTERM, SIGHUP};
  struct sigaction old_[3];
};

struct Stopped {};  // thrown between files when a stop signal arrived

// Removes its folder (recursively) unless released.
class StagingFolder {
 public:
  explicit StagingFolder(fs::path p) : path_(std::move(p)) {}
  ~StagingFolder() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  StagingFolder(const StagingFolder&) = delete;
  StagingFolder& operator=(const StagingFolder&) = delete;
  const fs::path& path() const { return path_; }
  void release() { path_.clear(); }

 private:
  fs::path path_;
};

// Whether `dir` may be replaced: it is empty or holds the marker (a site an earlier build wrote).
bool is_replaceable_folder(const fs::path& dir) {
  std::error_code ec;
  return fs::is_empty(dir, ec) || fs::exists(dir / kSiteMarker, ec);
}

std::string staging_prefix(const fs::path& target) { return "." + target.filename().string() + ".site-"; }

// Staging folders of this target left by a build that was killed (its pid no longer runs).
void remove_stale_staging(const fs::path& target) {
  std::error_code ec;
  const fs::path parent = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  const std::string prefix = staging_prefix(target);
  for (const auto& d : fs::directory_iterator(parent, ec)) {
    // Only a folder of exactly this form, holding the marker (every staging folder writes it first) or empty.
    std::string name = d.path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    static const std::regex rest("([0-9]{1,10})-[0-9a-f]{8}\\.tmp");
    std::smatch m;
    const std::string tail = name.substr(prefix.size());
    if (!std::regex_match(tail, m, rest) || !d.is_directory(ec) || d.is_symlink(ec)) continue;
    if (!is_replaceable_folder(d.path())) continue;
    long pid = std::strtol(m[1].str().c_str(), nullptr, 10);
    if (pid <= 0 || (kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)) fs::remove_all(d.path(), ec);
  }
}

void require_replaceable(const fs::path& target) {
  std::error_code ec;
  auto st = fs::symlink_status(target, ec);
  if (ec || st.type() == fs::file_type::not_found) return;
  if (st.type() != fs::file_type::directory)
    throw InputError(target.string(), "exists and is not a folder, so it is not a site openrecipes built",
                     "give -o a new folder or a site folder an earlier build wrote");
  if (is_replaceable_folder(target)) return;
  throw InputError(target.string(),
                   fmt::format("is a folder with files but no {} marker, so it is not a site "
                               "openrecipes built; nothing was written",
                               kSiteMarker),
                   "give -o a new or empty folder (build replaces a folder only when an earlier build wrote it)");
}

// Writes files under the staging folder from several threads: each folder is created once, each file with
// O_EXCL (the staging folder is ours alone), and a stop signal is noticed before every file.
class Writer {
 public:
  Writer(fs::path root, const std::function<void()>& after) : root_(std::move(root)), after_(after) {}

  void write(const std::string& relative, std::string_view bytes) {
    const fs::path p = begin(relative);
    int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) throw InputError(p.string(), std::string("cannot write: ") + std::strerror(errno));
    std::size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        int err = errno;
        ::close(fd);
        throw InputError(p.string(), std::string("cannot write: ") + std::strerror(err));
      }
      done += static_cast<std::size_t>(n);
    }
    if (::close(fd) != 0) throw InputError(p.string(), std::string("cannot write: ") + std::strerror(errno));
    finish();
  }

  /// A copy of `source` (the kernel copies: std::filesystem::copy_file).
  void copy(const std::string& relative, const fs::path& source) {
    const fs::path p = begin(relative);
    std::error_code ec;
    fs::copy_file(source, p, ec);
    if (ec) throw InputError(source.string(), "cannot copy it into the site: " + ec.message());
    finish();
  }

 private:
  fs::path begin(const std::string& relative) {
    if (StopSignals::stopped()) throw Stopped{};
    fs::path p = root_ / relative;
    const std::string parent = p.parent_path().string();
    std::lock_guard lock(mu_);
    if (!made_.count(parent)) {
      std::error_code ec;
      fs::create_directories(parent, ec);
      if (ec) throw InputError(parent, "cannot create the folder: " + ec.message());
      made_.insert(parent);
    }
    return p;
  }
  void finish() {
    if (!after_) return;
    std::lock_guard lock(mu_);
    after_();
  }

  fs::path root_;
  const std::function<void()>& after_;
  std::mutex mu_;
  std::set<std::string> made_;
};

// The evidence files and patches of each recipe the board shows, as (site path, source path): each at its
// evidence_site_path. A file that is missing or not a regular file is not copied (the recipe's reasons say so). The
// recipe.yaml is not among them: its page shows it (RecipeText), one file fewer a recipe.
std::map<std::string, fs::path> evidence_copies(const json& board,
                                                const std::map<std::string, const registry::Recipe*>& by_id) {
  std::map<std::string, fs::path> out;
  auto add = [&](const std::string& id, const std::string& relative, const fs::path& source) {
    std::error_code ec;
    const std::string at = evidence_site_path(id, relative);
    if (!at.empty() && fs::is_regular_file(source, ec)) out.emplace(at, source);
  };
  for (const auto& p : board["pairs"])
    for (const auto& [e, status] : pair_entries(p)) {
      auto it = by_id.find((*e)["id"].get<std::string>());
      if (it == by_id.end()) continue;
      const registry::Recipe& r = *it->second;
      add(r.id, r.log.relative, r.log.path);
      for (const auto* f : {&r.arguments, &r.versions, &r.times, &r.convergence_arm, &r.launch, &r.search})
        if (*f) add(r.id, (*f)->relative, (*f)->path);
      for (const auto& patch : r.patches) add(r.id, patch.relative, patch.path);
      for (const auto& t : r.component_tests)
        if (!t.output.empty()) add(r.id, t.output, r.dir / t.output);
      // The search's trial logs the board links (each one the build recomputed a trial from, inside the folder).
      if (e->contains("search") && (*e)["search"].is_object())
        for (const auto& t : (*e)["search"]["trials"])
          if (t["log"].is_string()) try {
              const std::string log = t["log"].get<std::string>();
              add(r.id, log, resolve_inside(r.dir, log, r.file.string() + ": evidence.search"));
            } catch (const InputError&) {
            }
    }
  return out;
}

// When the site is built: $SOURCE_DATE_EPOCH (the reproducible-builds convention: whole seconds since 1970) when set,
// else now; as "YYYY-MM-DD HH:MM UTC".
std::string built_at() {
  std::time_t t = std::time(nullptr);
  if (const char* env = std::getenv("SOURCE_DATE_EPOCH"); env && *env) {
    const std::string_view v(env);
    const auto n = parse_int(v);
    // Whole seconds since 1970 in digits only (reproducible-builds.org's rule: refuse anything else, never guess).
    if (v.size() > 12 || !std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; }) || !n)
      throw InputError("SOURCE_DATE_EPOCH", "not a whole number of seconds since 1970: " + quote_for_message(v),
                       "unset it, or give one, e.g. SOURCE_DATE_EPOCH=$(git log -1 --format=%ct)");
    t = static_cast<std::time_t>(*n);
  }
  std::tm tm{};
  gmtime_r(&t, &tm);
  return fmt::format("{:04}-{:02}-{:02} {:02}:{:02} UTC", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                     tm.tm_min);
}

// The previous build's state (data/build.json of the site being replaced), or null when there is none or it is not
// one this writer wrote (a state that does not parse is ignored: the site is rebuilt whole either way).
json previous_state(const fs::path& target) {
  std::error_code ec;
  if (!fs::exists(target / kSiteMarker, ec)) return nullptr;
  try {
    json j = parse_json_strict(read_file(target / "data" / "build.json", 16u << 20), "data/build.json", "");
    // Every field the next build reads, of its type: a state edited by hand or damaged is ignored whole.
    auto strings = [](const json& a) {
      return a.is_array() && std::all_of(a.begin(), a.end(), [](const json& x) { return x.is_string(); });
    };
    if (!j.is_object() || j.value("format", "") != kStateFormat || !j.contains("recipes") ||
        !j["recipes"].is_object() || !j.contains("changes") || !j["changes"].is_array())
      return nullptr;
    for (const auto& [id, fingerprint] : j["recipes"].items())
      if (!fingerprint.is_string()) return nullptr;
    for (const auto& c : j["changes"])
      if (!c.is_object() || !c.contains("built_at") || !c["built_at"].is_string() || !c.contains("first") ||
          !c["first"].is_boolean() || !c.contains("new") || !strings(c["new"]) || !c.contains("changed") ||
          !strings(c["changed"]) || !c.contains("removed") || !strings(c["removed"]))
        return nullptr;
    return j;
  } catch (const std::exception&) {
  }
  return nullptr;
}

}  // namespace

json site_state(const json& board, const json& previous, const std::string& when) {
  json recipes = json::object();
  for (const auto& p : board["pairs"])
    for (const auto& [e, status] : pair_entries(p)) recipes[(*e)["id"].get<std::string>()] = sha256_hex(e->dump());
  json changes = previous.is_object() ? previous["changes"] : json::array();
  json added = json::array(), changed = json::array(), removed = json::array();
  const json& before = previous.is_object() ? previous["recipes"] : json::object();
  for (auto it = recipes.begin(); it != recipes.end(); ++it) {
    if (!before.contains(it.key()))
      added.push_back(it.key());
    else if (before[it.key()] != it.value())
      changed.push_back(it.key());
  }
  for (auto it = before.begin(); it != before.end(); ++it)
    if (!recipes.contains(it.key())) removed.push_back(it.key());
  if (!added.empty() || !changed.empty() || !removed.empty()) {
    changes.insert(changes.begin(), json{{"built_at", when},
                                         {"first", !previous.is_object()},
                                         {"new", added},
                                         {"changed", changed},
                                         {"removed", removed}});
  }
  if (changes.size() > kMaxChangelog) changes.erase(changes.begin() + kMaxChangelog, changes.end());
  return {{"format", kStateFormat}, {"built_at", when}, {"recipes", recipes}, {"changes", changes}};
}

json published_board(json out, bool include_unverified) {
  if (include_unverified) return out;
  for (auto& p : out["pairs"]) {
    json ranked = json::array(), dropped = json::array();
    auto drop = [&](const json& e) { dropped.push_back({{"id", e["id"]}, {"reasons", e["reasons"]}}); };
    for (auto& e : p["ranked"])
      if (e["verified"].get<bool>())
        ranked.push_back(std::move(e));
      else
        drop(e);
    for (const auto& e : p["unranked"]) drop(e);
    p["ranked"] = ranked;
    p["unranked"] = json::array();
    p["unverified"] = dropped;  // no row or page, but named with its reasons on the model page
  }
  out["unreadable"] = json::array();
  return out;
}

void write_site(json board, const registry::Registry& reg, const fs::path& target_in,
                const std::function<void()>& after_each_file) {
  const fs::path target = without_trailing_separator(target_in);  // "site/" -> "site"
  if (target.empty()) throw InputError(target_in.string(), "is not a folder name", "e.g. -o site/");
  require_replaceable(target);
  const std::string when = built_at();  // before anything is written: a bad SOURCE_DATE_EPOCH stops the build here
  std::error_code ec;
  {
    const fs::path t = fs::weakly_canonical(fs::absolute(target), ec), r = fs::weakly_canonical(reg.root, ec);
    auto [ti, ri] = std::mismatch(t.begin(), t.end(), r.begin(), r.end());
    if (ti == t.end())
      throw InputError(target.string(),
                       "holds the registry being built (" + reg.root.string() +
                           "), which "
                           "replacing the site would delete",
                       "write the site to a folder outside the registry");
  }
  if (!target.parent_path().empty()) fs::create_directories(target.parent_path(), ec);
  remove_stale_staging(target);
  StopSignals signals;
  std::random_device rd;
  const fs::path staging = (target.parent_path().empty() ? fs::path(".") : target.parent_path()) /
                           fmt::format("{}{}-{:08x}.tmp", staging_prefix(target), getpid(), rd());
  if (!fs::create_directory(staging, ec) || ec)
    throw InputError(staging.string(), "cannot create the staging folder: " + ec.message(),
                     "check that the folder above the site can be written");
  StagingFolder guard(staging);
  try {
    Writer w(staging, after_each_file);
    w.write(kSiteMarker, "a site openrecipes build wrote; build -o replaces this folder as a whole\n");
    for (const auto& f : site_files())
      if (f.path.rfind("assets/", 0) == 0) w.write(std::string(f.path), f.bytes);
    w.write("data/leaderboard.json", board.dump(2) + "\n");
    w.write("data/recipes.json", recipes_json_text(board));
    w.write("data/recipes.csv", recipes_csv(board));
    // When it was built and what changed since the previous build of this site (data/build.json keeps the state).
    const json state = site_state(board, previous_state(target), when);
    w.write("data/build.json", state.dump(2) + "\n");
    // Evidence copies and pages, on every core (the order of writes does not change a byte of the site).
    std::map<std::string, const registry::Recipe*> by_id;  // every readable recipe of the registry
    for (const auto& e : reg.recipes)
      if (e.recipe) by_id.emplace(e.id, &*e.recipe);
    const auto copies = evidence_copies(board, by_id);
    const std::vector<std::pair<std::string, fs::path>> copy_list(copies.begin(), copies.end());
    tbb::parallel_for(std::size_t{0}, copy_list.size(),
                      [&](std::size_t i) { w.copy(copy_list[i].first, copy_list[i].second); });
    board["site"] = {{"built_at", state["built_at"]}, {"changes", state["changes"]}};
    const RecipeText recipe_text = [&by_id](const std::string& id) -> std::optional<std::string> {
      const auto it = by_id.find(id);
      if (it == by_id.end()) return std::nullopt;
      try {
        return read_file(it->second->file, kMaxYamlBytes);
      } catch (const InputError&) {
        return std::nullopt;  // gone since the build read it: the box names the folder only
      }
    };
    const auto jobs = site_page_jobs(board, recipe_text);
    tbb::parallel_for(std::size_t{0}, jobs.size(), [&](std::size_t i) { w.write(jobs[i].path, jobs[i].render()); });
    if (StopSignals::stopped()) throw Stopped{};
    // The swap: signals held back so that it is never half done; the old site ends up in the staging name.
    sigset_t hold, old;
    sigemptyset(&hold);
    sigaddset(&hold, SIGINT), sigaddset(&hold, SIGTERM), sigaddset(&hold, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &hold, &old);
    // rename() replaces only a missing or empty folder (ENOTEMPTY otherwise); after an exchange, what came out
    // must be a site (or empty): a folder someone made at the target while the build ran is put back.
    const bool exchange = fs::exists(target, ec);
    int rc = exchange ? renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE)
                      : ::rename(staging.c_str(), target.c_str());
    int err = errno;
    bool put_back = false;
    if (rc == 0 && exchange && !is_replaceable_folder(staging)) {
      put_back = true;
      renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE);
    }
    if (rc == 0 && !put_back && !fs::exists(staging, ec)) guard.release();  // a fresh target: nothing to clean
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    if (put_back) {
      guard.release();  // the staging path holds the new site again; remove only that, by its marker
      if (fs::exists(staging / kSiteMarker, ec)) fs::remove_all(staging, ec);
      throw InputError(target.string(),
                       "a folder of other files appeared there while the site was built; "
                       "it was left as it is and no site was written",
                       "give -o a new or empty folder");
    }
    if (rc != 0)
      throw InputError(target.string(), std::string("cannot put the new site in place: ") + std::strerror(err),
                       "the previous site is untouched; give -o a folder name (not . or a mount point) whose "
                       "parent can be written");
  } catch (const Stopped&) {
    // The guard removes the staging folder; StopSignals' destructor raises the signal again.
  }
}

}  // namespace openrecipes::site
