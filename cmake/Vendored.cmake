# Targets for the copies under third_party/ (see its README.md), each with
# the name the system package's target has, so the rest of the build does not
# care where a library came from. Included by Dependencies.cmake per library.

set(FASTENOUGH_THIRD_PARTY ${PROJECT_SOURCE_DIR}/third_party)

function(fastenough_vendored_simdjson)
  add_library(fastenough_vendored_simdjson STATIC ${FASTENOUGH_THIRD_PARTY}/simdjson/simdjson.cpp)
  target_include_directories(fastenough_vendored_simdjson SYSTEM PUBLIC
                             ${FASTENOUGH_THIRD_PARTY}/simdjson)
  add_library(simdjson::simdjson ALIAS fastenough_vendored_simdjson)
endfunction()

function(fastenough_vendored_libdeflate)
  set(d ${FASTENOUGH_THIRD_PARTY}/libdeflate)
  # Decompression, compression (tests write gzip), checksums, CPU dispatch.
  add_library(fastenough_vendored_libdeflate STATIC
    ${d}/lib/utils.c ${d}/lib/deflate_decompress.c ${d}/lib/deflate_compress.c
    ${d}/lib/gzip_decompress.c ${d}/lib/gzip_compress.c ${d}/lib/zlib_decompress.c
    ${d}/lib/zlib_compress.c ${d}/lib/adler32.c ${d}/lib/crc32.c
    ${d}/lib/x86/cpu_features.c ${d}/lib/arm/cpu_features.c)
  target_include_directories(fastenough_vendored_libdeflate SYSTEM PUBLIC ${d})
  set_target_properties(fastenough_vendored_libdeflate PROPERTIES C_STANDARD 99)
  add_library(fastenough_libdeflate INTERFACE)
  target_link_libraries(fastenough_libdeflate INTERFACE fastenough_vendored_libdeflate)
endfunction()

function(fastenough_vendored_zlib)
  set(d ${FASTENOUGH_THIRD_PARTY}/zlib)
  add_library(fastenough_vendored_zlib STATIC
    ${d}/adler32.c ${d}/compress.c ${d}/crc32.c ${d}/deflate.c ${d}/infback.c
    ${d}/inffast.c ${d}/inflate.c ${d}/inftrees.c ${d}/trees.c ${d}/uncompr.c ${d}/zutil.c)
  target_include_directories(fastenough_vendored_zlib SYSTEM PUBLIC ${d})
  # zlib's sources predate strict prototypes; its warnings are not ours.
  target_compile_options(fastenough_vendored_zlib PRIVATE -w)
  add_library(ZLIB::ZLIB ALIAS fastenough_vendored_zlib)
endfunction()
