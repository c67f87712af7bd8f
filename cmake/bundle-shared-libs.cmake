# cmake -DADDON=<path to svc_tts.node> -P cmake/bundle-shared-libs.cmake
# Copies every shared library the addon needs, and theirs in turn, beside it, except the core of
# the system that every Linux with Node has (glibc, libstdc++, libgcc_s). The addon's $ORIGIN
# rpath then finds them wherever the directory goes (prebuilds/). ONNX Runtime is no dependency:
# the build copies it there, and the addon opens it by path.
cmake_minimum_required(VERSION 3.21)
get_filename_component(dir ${ADDON} DIRECTORY)
set(CMAKE_GET_RUNTIME_DEPENDENCIES_PLATFORM linux+elf)
file(GET_RUNTIME_DEPENDENCIES
  LIBRARIES ${ADDON}
  RESOLVED_DEPENDENCIES_VAR resolved
  UNRESOLVED_DEPENDENCIES_VAR unresolved
  CONFLICTING_DEPENDENCIES_PREFIX conflicting
  PRE_EXCLUDE_REGEXES
    "^(libc|libm|libdl|librt|libpthread|libresolv|libutil)\\.so"
    "^ld-linux.*\\.so"
    "^(libstdc\\+\\+|libgcc_s)\\.so"
    "^libasan")
if(unresolved)
  message(FATAL_ERROR "The addon needs libraries this machine does not have: ${unresolved}")
endif()
# On a rebuild the copies made last time sit beside the addon, where its $ORIGIN rpath finds them
# too: the system's file is the one to copy again.
foreach(name IN LISTS conflicting_FILENAMES)
  foreach(candidate IN LISTS conflicting_${name})
    get_filename_component(candidate_dir ${candidate} DIRECTORY)
    if(NOT candidate_dir STREQUAL dir)
      list(APPEND resolved ${candidate})
      break()
    endif()
  endforeach()
endforeach()
foreach(library IN LISTS resolved)
  # The loader looks for the name the addon was linked with (the SONAME), not the file's real name.
  get_filename_component(name ${library} NAME)
  if(NOT library STREQUAL "${dir}/${name}")
    file(COPY_FILE ${library} ${dir}/${name} ONLY_IF_DIFFERENT)
  endif()
endforeach()
