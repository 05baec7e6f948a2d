// The readers on hand-made bytes: valid files, a header truncated at a known
// offset, corrupt fields, and every prefix / single-byte corruption of small
// files (an error or a result, never a crash).
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "fastenough/compare/npy_reader.h"
#include "fastenough/compare/npz_reader.h"
#include "fastenough/compare/safetensors_reader.h"

namespace fastenough::compare {
namespace {

std::string Safetensors(const std::string& header_json, const std::string& data) {
  std::string h = header_json;
  while (h.size() % 8) h += ' ';
  uint64_t n = h.size();
  std::string out(8, '\0');
  std::memcpy(out.data(), &n, 8);
  return out + h + data;
}

std::string TwoFloats() {
  std::string data(8, '\0');
  const float v[2] = {1.5f, -2.0f};
  std::memcpy(data.data(), v, 8);
  return Safetensors(R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"__metadata__":{"a":"b"}})",
                     data);
}

Status Read(const std::string& bytes, std::vector<TensorRef>* out) {
  PaddedBuffer b = PaddedBuffer::CopyOf(bytes);
  return ReadSafetensors("t.safetensors", b, "p/", out);
}

TEST(Safetensors, ReadsTensor) {
  std::string file = TwoFloats();
  PaddedBuffer b = PaddedBuffer::CopyOf(file);
  std::vector<TensorRef> out;
  ASSERT_TRUE(ReadSafetensors("t.safetensors", b, "p/", &out).ok());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].key, "p/x");
  EXPECT_EQ(out[0].dtype, DType::kF32);
  EXPECT_EQ(out[0].shape, std::vector<int64_t>{2});
  EXPECT_EQ(out[0].bytes, 8u);
  float v[2];
  std::memcpy(v, out[0].data, 8);
  EXPECT_EQ(v[1], -2.0f);
}

TEST(Safetensors, TruncatedHeaderNamesOffsets) {
  std::string file = TwoFloats();
  std::vector<TensorRef> out;
  Status s = Read(file.substr(0, 5), &out);
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_EQ(s.message(), "t.safetensors: truncated at byte 5: a safetensors file starts with "
                         "an 8-byte header length");
  // The JSON is 79 bytes, padded to 80: bytes 8..88, the data 88..96. Cut at byte 50.
  ASSERT_EQ(file.size(), 96u);
  s = Read(file.substr(0, 50), &out);
  EXPECT_EQ(s.message(), "t.safetensors: truncated at byte 50: the header claims 80 bytes of "
                         "JSON from byte 8 (to byte 88)");
  // Header complete, data cut: 4 of the 8 data bytes.
  s = Read(file.substr(0, 92), &out);
  EXPECT_EQ(s.message(), "t.safetensors: truncated at byte 92: tensor 'x' ends at byte 96");
}

TEST(Safetensors, CorruptFields) {
  std::vector<TensorRef> out;
  EXPECT_EQ(Read(Safetensors(R"({"x":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})",
                             std::string(8, '\0')), &out).code(),
            StatusCode::kDataLoss);
  EXPECT_EQ(Read(Safetensors(R"({"x":{"dtype":"C64","shape":[1],"data_offsets":[0,8]}})",
                             std::string(8, '\0')), &out).code(),
            StatusCode::kUnimplemented);
  Status s = Read(Safetensors("{not json", ""), &out);
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_NE(s.message().find("header JSON at bytes 8..24"), std::string::npos) << s.message();
}

// What the reference loader (safetensors' validate) refuses: the tensors,
// sorted by offset, must tile the data exactly. A name given twice is refused
// too (the reference keeps the last one silently: which one would we compare?).
TEST(Safetensors, DuplicateNamesAndOverlapsAreRefused) {
  const std::string data(16, '\x01');
  const struct {
    const char* header;
    const char* says;
  } cases[] = {
      {R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},)"
       R"("a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})",
       "tensor 'a' is named twice in the header"},
      {R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},)"
       R"("b":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}})",
       "tensor 'b' (data bytes 8..16) overlaps tensor 'a' (data bytes 0..16)"},
      {R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},)"
       R"("b":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})",
       "overlaps tensor"},
      {R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
       R"("b":{"dtype":"F32","shape":[1],"data_offsets":[12,16]}})",
       "data bytes 8..12 belong to no tensor"},
      {R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})",
       "data bytes 8..16 belong to no tensor"},
  };
  for (const auto& c : cases) {
    std::vector<TensorRef> out;
    Status st = Read(Safetensors(c.header, data), &out);
    EXPECT_EQ(st.code(), StatusCode::kDataLoss) << c.header;
    EXPECT_NE(st.message().find(c.says), std::string::npos) << st.message();
  }
  // Tiled exactly, in any order of the header, an empty tensor included: read.
  std::vector<TensorRef> out;
  Status ok = Read(Safetensors(R"({"b":{"dtype":"F32","shape":[2],"data_offsets":[8,16]},)"
                               R"("e":{"dtype":"F32","shape":[0],"data_offsets":[8,8]},)"
                               R"("a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})",
                               data),
                   &out);
  EXPECT_TRUE(ok.ok()) << ok.message();
  EXPECT_EQ(out.size(), 3u);
}

std::string Npy(const std::string& dict, const std::string& data) {
  std::string h = dict;
  while ((10 + h.size() + 1) % 64) h += ' ';
  h += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(h.size() & 0xff);
  out += static_cast<char>(h.size() >> 8);
  return out + h + data;
}

TEST(Npy, ReadsHeader) {
  std::string data(12, '\0');
  std::string file = Npy("{'descr': '<i2', 'fortran_order': False, 'shape': (2, 3), }", data);
  auto r = ReadNpy("a.npy", reinterpret_cast<const uint8_t*>(file.data()), file.size(), 0, "k");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->dtype, DType::kI16);
  EXPECT_EQ(r->shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(r->bytes, 12u);
  // 10 bytes of preamble + the 59-byte dict + newline, padded to 128: the data
  // needs 12 bytes from byte 128. Cut at byte 130.
  ASSERT_EQ(file.size(), 140u);
  auto t = ReadNpy("a.npy", reinterpret_cast<const uint8_t*>(file.data()), 130, 0, "k");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message(),
            "a.npy: truncated .npy data (the shape needs 12 bytes from byte 128) at byte 130");
  std::string scalar = Npy("{'descr': '<f8', 'fortran_order': False, 'shape': (), }",
                           std::string(8, '\0'));
  auto s = ReadNpy("s.npy", reinterpret_cast<const uint8_t*>(scalar.data()), scalar.size(), 0, "k");
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->shape.empty());
  std::string big_endian = Npy("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }",
                               std::string(4, '\0'));
  EXPECT_EQ(ReadNpy("b.npy", reinterpret_cast<const uint8_t*>(big_endian.data()),
                    big_endian.size(), 0, "k").status().code(),
            StatusCode::kUnimplemented);
}

// Every prefix and every byte flipped: never a crash (ASan/UBSan builds check more).
TEST(Readers, FuzzPrefixesAndFlips) {
  const std::string st = TwoFloats();
  const std::string npy = Npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
                              std::string(8, '\x01'));
  for (const std::string* file : {&st, &npy}) {
    for (size_t cut = 0; cut <= file->size(); ++cut) {
      std::string bytes = file->substr(0, cut);
      std::vector<TensorRef> out;
      std::vector<std::unique_ptr<PaddedBuffer>> bufs;
      PaddedBuffer b = PaddedBuffer::CopyOf(bytes);
      (void)ReadSafetensors("f", b, "", &out);
      (void)ReadNpy("f", reinterpret_cast<const uint8_t*>(b.data()), b.size(), 0, "k");
      (void)ReadNpz("f", b, "", &out, &bufs);
      for (size_t i = 0; i < cut; ++i) {
        for (uint8_t x : {0x01, 0x80, 0xff}) {
          std::string flipped = bytes;
          flipped[i] = static_cast<char>(flipped[i] ^ x);
          PaddedBuffer c = PaddedBuffer::CopyOf(flipped);
          std::vector<TensorRef> o;
          (void)ReadSafetensors("f", c, "", &o);
          for (const TensorRef& t : o) EXPECT_LE(t.data + t.bytes, reinterpret_cast<const uint8_t*>(c.data()) + c.size());
          (void)ReadNpy("f", reinterpret_cast<const uint8_t*>(c.data()), c.size(), 0, "k");
        }
      }
    }
  }
}

}  // namespace
}  // namespace fastenough::compare
