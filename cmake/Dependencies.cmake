# C++ dependencies come from Debian packages. Each failure names the package.
find_package(Threads REQUIRED)

# Where each library came from, for `fastenough --version`.
set(FASTENOUGH_SIMDJSON_ORIGIN "system")
set(FASTENOUGH_LIBDEFLATE_ORIGIN "system")
set(FASTENOUGH_ZLIB_ORIGIN "system")

find_package(simdjson CONFIG QUIET)
if(NOT simdjson_FOUND)
  message(FATAL_ERROR "simdjson not found: install it with `apt-get install libsimdjson-dev`")
endif()

find_package(ZLIB QUIET)
if(NOT ZLIB_FOUND)
  message(FATAL_ERROR "zlib not found: install it with `apt-get install zlib1g-dev`")
endif()

find_path(LIBDEFLATE_INCLUDE_DIR libdeflate.h)
find_library(LIBDEFLATE_LIBRARY NAMES deflate)
if(NOT LIBDEFLATE_INCLUDE_DIR OR NOT LIBDEFLATE_LIBRARY)
  message(FATAL_ERROR "libdeflate not found: install it with `apt-get install libdeflate-dev`")
endif()
add_library(fastenough_libdeflate INTERFACE)
target_include_directories(fastenough_libdeflate INTERFACE ${LIBDEFLATE_INCLUDE_DIR})
target_link_libraries(fastenough_libdeflate INTERFACE ${LIBDEFLATE_LIBRARY})

if(FASTENOUGH_BUILD_TESTS)
  find_package(GTest QUIET)
  if(NOT GTest_FOUND)
    message(FATAL_ERROR "GoogleTest not found: install it with `apt-get install libgtest-dev`")
  endif()
endif()
