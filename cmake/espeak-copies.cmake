# cmake -DARCHIVE=<our copy of libespeak-ng.a> -DCOPIES=<n> -DOUT=<dir> -DOBJCOPY=<objcopy> -DNM=<nm>
#       -P cmake/espeak-copies.cmake
# Writes OUT/libespeak-ng-<i>.a for i in 0..COPIES-1: ARCHIVE with every symbol it defines for the
# others renamed svc_espeak<i>_<symbol>, and its random source svc_espeak<i>_rand, so that the
# copies link side by side and each keeps a state of its own (native/backends/espeak/copy.inc).
# What it takes from elsewhere (libc, libsonic, the addon's glue) keeps its name: all copies share it.
cmake_minimum_required(VERSION 3.21)

execute_process(COMMAND ${NM} --defined-only -g ${ARCHIVE} OUTPUT_VARIABLE listing ERROR_QUIET RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${NM} could not read ${ARCHIVE}")
endif()
string(REPLACE "\n" ";" lines "${listing}")
set(symbols svc_tts_espeak_rand svc_tts_espeak_srand)
foreach(line IN LISTS lines)
  if(line MATCHES "^[0-9a-f]+ [A-Z] (.+)$")
    list(APPEND symbols ${CMAKE_MATCH_1})
  endif()
endforeach()
list(REMOVE_DUPLICATES symbols)

file(MAKE_DIRECTORY ${OUT})
math(EXPR last "${COPIES} - 1")
foreach(i RANGE ${last})
  set(map "")
  foreach(symbol IN LISTS symbols)
    string(REGEX REPLACE "^svc_tts_espeak_" "" plain ${symbol})
    string(APPEND map "${symbol} svc_espeak${i}_${plain}\n")
  endforeach()
  file(WRITE ${OUT}/rename-${i}.txt "${map}")
  execute_process(COMMAND ${OBJCOPY} --redefine-syms=${OUT}/rename-${i}.txt ${ARCHIVE} ${OUT}/libespeak-ng-${i}.a
    COMMAND_ERROR_IS_FATAL ANY)
endforeach()
