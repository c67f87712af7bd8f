// Rewritten models (onnx/conv_lift.h, onnx/split.h) kept on disk between loads: a second load of
// the same file has ONNX Runtime read the rewrite by path instead of parsing and rewriting the
// model again. The caller names the entry (a key for the source file's identity); every file of
// it is written to a temporary name and renamed into place, its notes last, so a reader that
// finds the notes finds the rest, whichever process wrote them. A cache that cannot be read or
// written costs only the time: the model is rewritten in memory as before.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace svc {

// What the rewrite was and found, as name-value lines (names and values without newlines;
// a name may repeat for a list).
using CacheNotes = std::vector<std::pair<std::string, std::string>>;

// The value of `name` in `notes`, or empty; all values of `name`, in order.
std::string NoteOf(const CacheNotes& notes, const std::string& name);
std::vector<std::string> NotesOf(const CacheNotes& notes, const std::string& name);

class ModelCache {
 public:
  // No directory: nothing is read or written.
  ModelCache() = default;
  ModelCache(std::string directory, std::string key) : directory_(std::move(directory)), key_(std::move(key)) {}

  bool Enabled() const { return !directory_.empty() && !key_.empty(); }
  // <directory>/<key>-r<rewrite version>.<part>: a change to what the rewrites make changes every name.
  std::string Path(const std::string& part) const;
  // The notes of entry `part`, when it was written whole.
  std::optional<CacheNotes> ReadNotes(const std::string& part) const;
  // A new file's path in the directory, for a writer that takes a path (ONNX Runtime's optimized
  // graph); "" with why where the directory cannot be made.
  std::string TemporaryPath(std::string& why) const;
  // Writes the files (name, bytes), renames `written` (name, a TemporaryPath written) into place,
  // then writes the notes; "" or why it could not (the notes are then not written, so nothing is read).
  std::string Write(const std::vector<std::pair<std::string, std::string_view>>& files, const std::string& part,
                    const CacheNotes& notes, const std::vector<std::pair<std::string, std::string>>& written = {}) const;

 private:
  std::string directory_;
  std::string key_;
};

}  // namespace svc
