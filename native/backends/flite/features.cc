// libflite reads the features its CART trees ask for by path ("R:SylStructure.parent.parent.stress"):
// at every call it copies the path, splits it with strchr, compares each step with strcmp, and
// looks the feature's name up in the voice's list of feature functions with strcmp again. Before
// rms's first audio that was over half the time (perf: strcmp 35 %, strchr 16 %). The link sends
// the library's calls here (-Wl,--wrap, CMakeLists.txt): the same walk and the same answers, with
// each path parsed once per thread and each feature function found once per function list.
#include <flite/flite.h>

#include <cstring>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

enum class Step { Next, Prev, PrevPrev, NextNext, Parent, Daughter, LastDaughter, Relation, Unknown };

struct ParsedPath {
  std::string text;
  std::vector<std::string> tokens;  // the path split at '.' and ':', as libflite splits it
  std::vector<Step> steps;          // what each token means as a step
  // The feature function the last token names, for the function list it was looked up in (a
  // voice registers its functions when it loads, before it speaks: the answer cannot go stale).
  const cst_features* functions = nullptr;
  const cst_val* function = nullptr;
};

Step StepOf(const std::string& token) {
  if (token == "n") return Step::Next;
  if (token == "p") return Step::Prev;
  if (token == "pp") return Step::PrevPrev;
  if (token == "nn") return Step::NextNext;
  if (token == "parent") return Step::Parent;
  if (token == "daughter" || token == "daughter1") return Step::Daughter;
  if (token == "daughtern") return Step::LastDaughter;
  if (token == "R") return Step::Relation;
  return Step::Unknown;
}

std::unique_ptr<ParsedPath> Parse(const char* path) {
  auto parsed = std::make_unique<ParsedPath>();
  parsed->text = path;
  std::string token;
  for (const char* c = path; *c; ++c) {
    if (*c == '.' || *c == ':') {
      parsed->tokens.push_back(token);
      token.clear();
    } else {
      token.push_back(*c);
    }
  }
  parsed->tokens.push_back(token);
  for (const std::string& t : parsed->tokens) parsed->steps.push_back(StepOf(t));
  return parsed;
}

// Paths by text, and by the address the caller passed (checked against the text: a caller's
// buffer may hold another path next time).
class PathCache {
 public:
  ParsedPath& Find(const char* path) {
    const auto seen = byAddress_.find(path);
    if (seen != byAddress_.end() && std::strcmp(seen->second->text.c_str(), path) == 0) return *seen->second;
    std::unique_ptr<ParsedPath>& slot = byText_[path];
    if (!slot) slot = Parse(path);
    byAddress_[path] = slot.get();
    return *slot;
  }

 private:
  std::unordered_map<std::string, std::unique_ptr<ParsedPath>> byText_;
  std::unordered_map<const char*, ParsedPath*> byAddress_;
};

thread_local PathCache paths;

const cst_item* Move(const cst_item* item, Step step, const char* relation) {
  switch (step) {
    case Step::Next: return item_next(item);
    case Step::Prev: return item_prev(item);
    case Step::PrevPrev: return item_prev(item) ? item_prev(item_prev(item)) : nullptr;
    case Step::NextNext: return item_next(item) ? item_next(item_next(item)) : nullptr;
    case Step::Parent: return item_parent(item);
    case Step::Daughter: return item_daughter(item);
    case Step::LastDaughter: return item_last_daughter(item);
    case Step::Relation: return item_as(item, relation);
    case Step::Unknown: break;
  }
  return nullptr;
}

// Walks the steps of `path` from `item`: all of them (an item is wanted), or all but the feature
// name. `stopped` is the token the walk ended at; false for an unknown step.
bool Walk(const ParsedPath& path, bool toItem, const cst_item*& item, size_t& stopped) {
  const size_t count = path.tokens.size();
  size_t j = 0;
  while (item && (toItem ? j < count : j + 1 < count)) {
    const Step step = path.steps[j];
    if (step == Step::Unknown) return false;
    if (step == Step::Relation) ++j;  // the relation's name is the next token
    item = Move(item, step, j < count ? path.tokens[j].c_str() : "");
    ++j;
  }
  stopped = j;
  return true;
}

// What a feature nobody set reads as. A constant val, as libflite's own is: callers may keep it in
// an item's features, which would free a val made with string_val.
DEF_STATIC_CONST_VAL_STRING(unset_feature, "0");

}  // namespace

extern "C" {

const cst_val* __wrap_ffeature(const cst_item* item, const char* featpath) {
  ParsedPath& path = paths.Find(featpath);
  const cst_item* at = item;
  size_t stopped = 0;
  if (!Walk(path, false, at, stopped)) return nullptr;
  const char* name = stopped < path.tokens.size() ? path.tokens[stopped].c_str() : "";
  const cst_val* function = nullptr;
  if (at != nullptr) {
    if (const cst_utterance* utt = item_utt(at)) {
      if (path.functions != utt->ffunctions || stopped + 1 != path.tokens.size()) {
        function = feat_val(utt->ffunctions, name);
        if (stopped + 1 == path.tokens.size()) {
          path.functions = utt->ffunctions;
          path.function = function;
        }
      } else {
        function = path.function;
      }
    }
  }
  const cst_val* value = nullptr;
  if (function == nullptr) value = item_feat(at, name);
  else if (at != nullptr) value = val_ffunc(function)(at);
  return value != nullptr ? value : &unset_feature;
}

cst_item* __wrap_path_to_item(const cst_item* item, const char* featpath) {
  const cst_item* at = item;
  size_t stopped = 0;
  if (!Walk(paths.Find(featpath), true, at, stopped)) return nullptr;
  return const_cast<cst_item*>(at);
}

const char* __wrap_ffeature_string(const cst_item* item, const char* featpath) {
  return val_string(__wrap_ffeature(item, featpath));
}

int __wrap_ffeature_int(const cst_item* item, const char* featpath) { return val_int(__wrap_ffeature(item, featpath)); }

float __wrap_ffeature_float(const cst_item* item, const char* featpath) { return val_float(__wrap_ffeature(item, featpath)); }

}  // extern "C"
