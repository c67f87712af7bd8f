// flite's clustergen vocoder and espeak-ng's noise sources call libc rand(), one generator for
// the whole process: the same request gave different audio each time, depending on what ran
// beside it. Here every thread gets its own generator running glibc's own algorithm (random_r),
// which ReseedBackendRandom restarts at glibc's default seed, 1: a flite chunk is reproducible,
// and a single sentence matches the flite program, which starts from that seed. (espeak-ng also
// carries state of its own from one call to the next, such as its pitch flutter position, so its
// output still varies a little.)
//
// The backends' calls are redirected by rewriting their rand/srand entries in the global offset
// table of libflite.so and libespeak-ng.so. Defining rand() in the addon cannot work (libc is
// earlier in the lookup order, NATIVE.md C5), and the Debian static archives are not
// position-independent, so they cannot be linked into the addon and wrapped at link time.
#include "random.h"

#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace svc {
namespace {

constexpr unsigned kDefaultSeed = 1;  // what rand() uses before any srand(), per C and glibc

struct ThreadRandom {
  random_data data{};
  char state[128] = {};  // 128 bytes: the additive generator glibc's rand() uses (TYPE_3)

  ThreadRandom() { initstate_r(kDefaultSeed, state, sizeof state, &data); }
};

ThreadRandom& Current() {
  thread_local ThreadRandom random;
  return random;
}

int ThreadRand() {
  int32_t value = 0;
  random_r(&Current().data, &value);
  return value;
}

void ThreadSrand(unsigned seed) { srandom_r(seed, &Current().data); }

bool IsBackend(const char* path) {
  return path != nullptr && (std::strstr(path, "/libflite.so") != nullptr || std::strstr(path, "/libespeak-ng.so") != nullptr);
}

// Dynamic-section addresses are absolute once glibc has relocated them, offsets on some targets.
template <typename T>
T* At(const dl_phdr_info* info, ElfW(Addr) value) {
  return reinterpret_cast<T*>(value < info->dlpi_addr ? info->dlpi_addr + value : value);
}

void WriteSlot(const dl_phdr_info* info, ElfW(Addr) offset, void* target) {
  auto* slot = reinterpret_cast<void**>(info->dlpi_addr + offset);
  const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  void* start = reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(slot) & ~(page - 1));
  // The slot may lie in the read-only-after-relocation (RELRO) part: open it for the write.
  bool relro = false;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type == PT_GNU_RELRO && offset >= ph.p_vaddr && offset < ph.p_vaddr + ph.p_memsz) relro = true;
  }
  if (relro && mprotect(start, page, PROT_READ | PROT_WRITE) != 0) return;
  *slot = target;
  if (relro) mprotect(start, page, PROT_READ);
}

void PatchRelocations(const dl_phdr_info* info, const ElfW(Rela)* relocations, size_t bytes, const ElfW(Sym)* symbols,
                      const char* names) {
  for (size_t i = 0; i < bytes / sizeof(ElfW(Rela)); ++i) {
    const size_t symbol = ELF64_R_SYM(relocations[i].r_info);
    if (symbol == 0) continue;
    const char* name = names + symbols[symbol].st_name;
    if (std::strcmp(name, "rand") == 0) WriteSlot(info, relocations[i].r_offset, reinterpret_cast<void*>(&ThreadRand));
    else if (std::strcmp(name, "srand") == 0) WriteSlot(info, relocations[i].r_offset, reinterpret_cast<void*>(&ThreadSrand));
  }
}

int PatchBackend(dl_phdr_info* info, size_t, void*) {
  if (!IsBackend(info->dlpi_name)) return 0;
  const ElfW(Dyn)* dynamic = nullptr;
  for (int i = 0; i < info->dlpi_phnum; ++i)
    if (info->dlpi_phdr[i].p_type == PT_DYNAMIC) dynamic = reinterpret_cast<const ElfW(Dyn)*>(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
  if (dynamic == nullptr) return 0;
  ElfW(Addr) symtab = 0, strtab = 0, jmprel = 0, rela = 0;
  size_t jmprelSize = 0, relaSize = 0;
  for (const ElfW(Dyn)* d = dynamic; d->d_tag != DT_NULL; ++d) {
    switch (d->d_tag) {
      case DT_SYMTAB: symtab = d->d_un.d_ptr; break;
      case DT_STRTAB: strtab = d->d_un.d_ptr; break;
      case DT_JMPREL: jmprel = d->d_un.d_ptr; break;
      case DT_PLTRELSZ: jmprelSize = d->d_un.d_val; break;
      case DT_RELA: rela = d->d_un.d_ptr; break;
      case DT_RELASZ: relaSize = d->d_un.d_val; break;
      default: break;
    }
  }
  if (symtab == 0 || strtab == 0) return 0;
  const auto* symbols = At<const ElfW(Sym)>(info, symtab);
  const auto* names = At<const char>(info, strtab);
  if (jmprel != 0) PatchRelocations(info, At<const ElfW(Rela)>(info, jmprel), jmprelSize, symbols, names);
  if (rela != 0) PatchRelocations(info, At<const ElfW(Rela)>(info, rela), relaSize, symbols, names);
  return 0;
}

}  // namespace

void InstallBackendRandom() {
  static std::once_flag once;
  std::call_once(once, [] { dl_iterate_phdr(PatchBackend, nullptr); });
}

void ReseedBackendRandom() { ThreadSrand(kDefaultSeed); }

}  // namespace svc
