#include "fastenough/util/file_bytes.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "fastenough/util/gzip.h"

namespace fastenough {
namespace {

std::string Gzip(const std::string& text) {
  z_stream zs{};
  deflateInit2(&zs, 6, Z_DEFLATED, MAX_WBITS + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&zs, text.size()) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  zs.avail_in = static_cast<uInt>(text.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

std::string TempPath(const char* tag) {
  return testing::TempDir() + "/fe_reader_" + tag + "_" + std::to_string(getpid());
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

std::string Text(size_t n) {
  std::string s;
  for (size_t i = 0; s.size() < n; ++i) s += "{\"ts\": " + std::to_string(i * 7) + "},";
  s.resize(n);
  return s;
}

TEST(ReaderGzip, WholeBufferAndPadding) {
  const std::string text = Text(100000);
  const std::string gz = Gzip(text);
  bool truncated = true;
  auto out = GunzipToPadded(reinterpret_cast<const uint8_t*>(gz.data()), gz.size(), &truncated);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_FALSE(truncated);
  EXPECT_EQ(out->view(), text);
  for (size_t i = 0; i < PaddedBuffer::kPadding; ++i) EXPECT_EQ(out->data()[text.size() + i], 0);
}

TEST(ReaderGzip, ConcatenatedMembers) {
  const std::string a = Text(5000), b = Text(7000);
  const std::string gz = Gzip(a) + Gzip(b);
  bool truncated = true;
  auto out = GunzipToPadded(reinterpret_cast<const uint8_t*>(gz.data()), gz.size(), &truncated);
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(truncated);
  EXPECT_EQ(out->view(), a + b);
}

TEST(ReaderGzip, TruncatedKeepsPrefix) {
  const std::string text = Text(200000);
  const std::string gz = Gzip(text);
  for (size_t cut : {gz.size() - 1, gz.size() - 8, gz.size() / 2, size_t{40}}) {
    bool truncated = false;
    auto out = GunzipToPadded(reinterpret_cast<const uint8_t*>(gz.data()), cut, &truncated);
    ASSERT_TRUE(out.ok()) << cut;
    EXPECT_TRUE(truncated) << cut;
    EXPECT_LE(out->size(), text.size());
    EXPECT_EQ(out->view(), std::string_view(text).substr(0, out->size())) << cut;
  }
}

TEST(ReaderGzip, Garbage) {
  const std::string bad = "\x1f\x8b garbage that is not deflate at all";
  bool truncated = false;
  auto out = GunzipToPadded(reinterpret_cast<const uint8_t*>(bad.data()), bad.size(), &truncated);
  EXPECT_FALSE(out.ok());
}

TEST(ReaderFileBytes, PlainGzipAndMissing) {
  const std::string text = Text(4096);  // exactly one page: padding must still be readable
  const std::string plain = TempPath("plain"), gz = TempPath("gz");
  WriteFile(plain, text);
  WriteFile(gz, Gzip(text));
  uint64_t disk = 0;
  bool truncated = true;
  auto a = ReadFileBytes(plain, &disk, &truncated);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->view(), text);
  EXPECT_EQ(disk, text.size());
  for (size_t i = 0; i < PaddedBuffer::kPadding; ++i) EXPECT_EQ(a->data()[text.size() + i], 0);
  auto b = ReadFileBytes(gz, &disk, &truncated);  // name says nothing: magic bytes decide
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->view(), text);
  EXPECT_FALSE(truncated);
  EXPECT_LT(disk, text.size());
  auto c = ReadFileBytes(plain + ".missing", &disk, &truncated);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(c.status().message().rfind(plain + ".missing", 0), 0u);
  std::remove(plain.c_str());
  std::remove(gz.c_str());
}

// A stated limit on how far a gzip stream may expand, on both paths (libdeflate
// when ISIZE is within the limit, zlib streaming past it): refused as too large,
// with how to raise the limit; within it, read whole.
TEST(ReaderGzip, InflateLimit) {
  const std::string text(1 << 20, ' ');  // spaces: ~1000:1
  const std::string gz = Gzip(text);
  const auto* bytes = reinterpret_cast<const uint8_t*>(gz.data());
  GunzipOptions o;
  o.max_ratio = 10;
  o.min_limit_bytes = 64 << 10;
  o.raise_hint = "raise it with X";
  bool truncated = false;
  auto r = GunzipToPadded(bytes, gz.size(), &truncated, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(r.status().message().find("too large: inflates to more than 65536 bytes"),
            std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("raise it with X"), std::string::npos);
  o.min_limit_bytes = 1 << 20;  // exactly the text: allowed
  auto ok = GunzipToPadded(bytes, gz.size(), &truncated, o);
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->view(), text);
}

TEST(ReaderGzip, HeadCheckStopsBeforeTheWholeStream) {
  const std::string gz = Gzip(std::string(8 << 20, '\0'));
  GunzipOptions o;
  size_t seen = 0;
  o.check_head = [&](std::string_view head) {
    seen = head.size();
    return head[0] == '{' ? Status::Ok() : InvalidArgument("not JSON");
  };
  bool truncated = false;
  auto r = GunzipToPadded(reinterpret_cast<const uint8_t*>(gz.data()), gz.size(), &truncated, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "not JSON");
  EXPECT_EQ(seen, 64u << 10);  // only the first 64 KiB were inflated
}

// A FIFO nobody writes to: open() without O_NONBLOCK waited forever.
TEST(ReaderFileBytes, FifoIsRefusedWithoutWaiting) {
  const std::string fifo = TempPath("fifo");
  std::remove(fifo.c_str());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  uint64_t disk = 0;
  bool truncated = false;
  auto r = ReadFileBytes(fifo, &disk, &truncated);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("not a regular file (a FIFO or pipe)"), std::string::npos);
  auto d = ReadFileBytes(testing::TempDir(), &disk, &truncated);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("a directory"), std::string::npos);
  std::remove(fifo.c_str());
}

TEST(ReaderFileBytes, ResizeKeepsContentAndZeroPadding) {
  PaddedBuffer b = PaddedBuffer::CopyOf("hello");
  ASSERT_TRUE(b.Resize(1 << 20).ok());
  EXPECT_EQ(b.view().substr(0, 5), "hello");
  ASSERT_TRUE(b.Resize(3).ok());
  EXPECT_EQ(b.view(), "hel");
  EXPECT_EQ(b.data()[3], 0);
}

}  // namespace
}  // namespace fastenough
