#include "backends/backend.h"

namespace svc {

int32_t CodePointOffset(const std::string& utf8, size_t byteOffset) {
  int32_t count = 0;
  for (size_t i = 0; i < byteOffset && i < utf8.size(); ++i)
    if ((static_cast<unsigned char>(utf8[i]) & 0xC0) != 0x80) ++count;
  return count;
}

}  // namespace svc
