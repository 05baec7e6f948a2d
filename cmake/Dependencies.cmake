# C++ dependencies: the system packages where present (Debian:
# libsimdjson-dev libdeflate-dev zlib1g-dev), else the copies in third_party/.
# FASTENOUGH_VENDORED_DEPS=ON (CMake option or environment variable) always
# uses the copies: a pip install on a machine without root needs nothing but
# a C/C++ compiler.
find_package(Threads REQUIRED)
include(${CMAKE_CURRENT_LIST_DIR}/Vendored.cmake)

set(_vendored_default OFF)
if("$ENV{FASTENOUGH_VENDORED_DEPS}" MATCHES "^(1|ON|on|yes|true|TRUE)$")
  set(_vendored_default ON)
endif()
option(FASTENOUGH_VENDORED_DEPS "Build simdjson, libdeflate and zlib from third_party/" ${_vendored_default})

# Where each library came from, for `fastenough --version`.
set(FASTENOUGH_SIMDJSON_ORIGIN "system")
set(FASTENOUGH_LIBDEFLATE_ORIGIN "system")
set(FASTENOUGH_ZLIB_ORIGIN "system")

if(NOT FASTENOUGH_VENDORED_DEPS)
  find_package(simdjson CONFIG QUIET)
endif()
if(NOT simdjson_FOUND)
  fastenough_vendored_simdjson()
  set(FASTENOUGH_SIMDJSON_ORIGIN "vendored")
endif()

if(NOT FASTENOUGH_VENDORED_DEPS)
  find_package(ZLIB QUIET)
endif()
if(NOT ZLIB_FOUND)
  fastenough_vendored_zlib()
  set(FASTENOUGH_ZLIB_ORIGIN "vendored")
endif()

if(NOT FASTENOUGH_VENDORED_DEPS)
  find_path(LIBDEFLATE_INCLUDE_DIR libdeflate.h)
  find_library(LIBDEFLATE_LIBRARY NAMES deflate)
endif()
if(NOT FASTENOUGH_VENDORED_DEPS AND LIBDEFLATE_INCLUDE_DIR AND LIBDEFLATE_LIBRARY)
  add_library(fastenough_libdeflate INTERFACE)
  target_include_directories(fastenough_libdeflate INTERFACE ${LIBDEFLATE_INCLUDE_DIR})
  target_link_libraries(fastenough_libdeflate INTERFACE ${LIBDEFLATE_LIBRARY})
else()
  fastenough_vendored_libdeflate()
  set(FASTENOUGH_LIBDEFLATE_ORIGIN "vendored")
endif()
message(STATUS "fastenough: simdjson ${FASTENOUGH_SIMDJSON_ORIGIN}, libdeflate "
               "${FASTENOUGH_LIBDEFLATE_ORIGIN}, zlib ${FASTENOUGH_ZLIB_ORIGIN}")

if(FASTENOUGH_BUILD_TESTS)
  find_package(GTest QUIET)
  if(NOT GTest_FOUND)
    message(FATAL_ERROR "GoogleTest not found (needed only for the C++ tests, "
                        "FASTENOUGH_BUILD_TESTS=ON): install it with `apt-get install libgtest-dev`")
  endif()
endif()
