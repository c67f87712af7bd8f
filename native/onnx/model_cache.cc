#include "onnx/model_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace svc {
namespace {

// Raised whenever conv_lift.cc, split.cc or what the notes hold changes: old entries are then
// never read again.
constexpr int kRewriteVersion = 1;

std::string WriteTemporary(const std::string& directory, std::string_view bytes, std::string& path) {
  std::string name = directory + "/.tmp-XXXXXX";
  const int fd = mkstemp(name.data());
  if (fd < 0) return std::string("cannot create a file in ") + directory + ": " + std::strerror(errno);
  path = name;
  size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = std::string("cannot write ") + name + ": " + std::strerror(errno);
      close(fd);
      unlink(name.c_str());
      return why;
    }
    written += static_cast<size_t>(n);
  }
  fchmod(fd, 0644);  // mkstemp's 0600 would keep the entry from other users sharing the directory
  if (close(fd) != 0) {
    unlink(name.c_str());
    return std::string("cannot write ") + name + ": " + std::strerror(errno);
  }
  return "";
}

}  // namespace

std::string NoteOf(const CacheNotes& notes, const std::string& name) {
  for (const auto& [n, value] : notes)
    if (n == name) return value;
  return "";
}

std::vector<std::string> NotesOf(const CacheNotes& notes, const std::string& name) {
  std::vector<std::string> values;
  for (const auto& [n, value] : notes)
    if (n == name) values.push_back(value);
  return values;
}

std::string ModelCache::Path(const std::string& part) const {
  return directory_ + "/" + key_ + "-r" + std::to_string(kRewriteVersion) + "." + part;
}

std::optional<CacheNotes> ModelCache::ReadNotes(const std::string& part) const {
  if (!Enabled()) return std::nullopt;
  std::ifstream in(Path(part + ".notes"));
  if (!in) return std::nullopt;
  CacheNotes notes;
  std::string line;
  bool complete = false;
  while (std::getline(in, line)) {
    if (line == "end") complete = true;
    const auto tab = line.find('\t');
    if (tab != std::string::npos) notes.emplace_back(line.substr(0, tab), line.substr(tab + 1));
  }
  if (!complete) return std::nullopt;
  return notes;
}

std::string ModelCache::TemporaryPath(std::string& why) const {
  std::error_code error;
  std::filesystem::create_directories(directory_, error);
  if (error) {
    why = "cannot create " + directory_ + ": " + error.message();
    return "";
  }
  std::string path;
  why = WriteTemporary(directory_, "", path);
  return why.empty() ? path : "";
}

std::string ModelCache::Write(const std::vector<std::pair<std::string, std::string_view>>& files, const std::string& part,
                              const CacheNotes& notes, const std::vector<std::pair<std::string, std::string>>& written) const {
  if (!Enabled()) return "";
  std::vector<std::pair<std::string, std::string>> renames = written;
  std::error_code error;
  std::filesystem::create_directories(directory_, error);
  if (error) return "cannot create " + directory_ + ": " + error.message();
  std::string text;
  for (const auto& [name, value] : notes) {
    if (name.find_first_of("\t\n") != std::string::npos || value.find('\n') != std::string::npos) {
      for (const auto& [n, t] : renames) unlink(t.c_str());
      return "a name in the model holds a tab or a newline";
    }
    text += name + "\t" + value + "\n";
  }
  text += "end\n";
  std::vector<std::pair<std::string, std::string_view>> all = files;
  all.emplace_back(part + ".notes", text);
  for (const auto& [name, bytes] : all) {
    std::string temporary;
    if (std::string why = WriteTemporary(directory_, bytes, temporary); !why.empty()) {
      for (const auto& [n, t] : renames) unlink(t.c_str());
      return why;
    }
    renames.emplace_back(name, temporary);
  }
  // rename() replaces atomically: a process loading the entry meanwhile sees the old file or this
  // one. The notes go last: a reader that finds them finds the rest.
  for (const auto& [name, temporary] : renames) {
    if (std::rename(temporary.c_str(), Path(name).c_str()) != 0) {
      const std::string why = "cannot rename into " + Path(name) + ": " + std::strerror(errno);
      for (const auto& [n, t] : renames) unlink(t.c_str());
      return why;
    }
  }
  return "";
}

}  // namespace svc
