#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>
#include <sstream>

#include "models/transformer.h"

namespace eagervm::models {
namespace {

// Not std::uniform_real_distribution: its output is not specified
// bit-for-bit across standard libraries.
float Unit(std::mt19937_64& g) { return static_cast<float>(g() >> 40) / float(1 << 24); }

LmParam Param(std::string name, std::vector<int64_t> shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return LmParam{std::move(name), std::move(shape), std::vector<float>(static_cast<size_t>(n))};
}

}  // namespace

absl::StatusOr<Corpus> LoadCorpus(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return absl::NotFoundError("cannot read the corpus " + path);
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string text = ss.str();
  if (text.size() < 4096) return absl::InvalidArgumentError("corpus too short: " + path);
  Corpus c;
  c.path = path;
  bool seen[256] = {};
  for (unsigned char ch : text) seen[ch] = true;
  int64_t id_of[256] = {};
  for (int b = 0; b < 256; ++b) {
    if (!seen[b]) continue;
    id_of[b] = static_cast<int64_t>(c.vocab.size());
    c.vocab.push_back(static_cast<char>(b));
  }
  c.ids.reserve(text.size());
  for (unsigned char ch : text) c.ids.push_back(id_of[ch]);
  return c;
}

std::vector<LmBatch> MakeBatches(const LmConfig& c, const Corpus& corpus) {
  std::mt19937_64 g(c.seed + 1000);
  const uint64_t span = corpus.ids.size() - static_cast<uint64_t>(c.context) - 1;
  std::vector<LmBatch> out(static_cast<size_t>(c.batches));
  for (LmBatch& b : out) {
    for (int64_t r = 0; r < c.batch; ++r) {
      const size_t at = static_cast<size_t>(g() % span);
      b.x.insert(b.x.end(), corpus.ids.begin() + at, corpus.ids.begin() + at + c.context);
      b.y.insert(b.y.end(), corpus.ids.begin() + at + 1, corpus.ids.begin() + at + 1 + c.context);
    }
  }
  return out;
}

std::vector<LmParam> InitialLmParams(const LmConfig& c, int64_t vocab) {
  const int64_t d = c.d;
  std::vector<LmParam> p;
  p.push_back(Param("tok_emb", {vocab, d}));
  p.push_back(Param("pos_emb", {c.context, d}));
  for (int64_t l = 0; l < c.layers; ++l) {
    const std::string pre = "l" + std::to_string(l) + ".";
    for (const char* n : {"ln1_w", "ln1_b"}) p.push_back(Param(pre + n, {d}));
    for (const char* n : {"wq", "wk", "wv", "wo"}) p.push_back(Param(pre + n, {d, d}));
    p.push_back(Param(pre + "bo", {d}));
    for (const char* n : {"ln2_w", "ln2_b"}) p.push_back(Param(pre + n, {d}));
    p.push_back(Param(pre + "w1", {d, 4 * d}));
    p.push_back(Param(pre + "b1", {4 * d}));
    p.push_back(Param(pre + "w2", {4 * d, d}));
    p.push_back(Param(pre + "b2", {d}));
  }
  p.push_back(Param("lnf_w", {d}));
  p.push_back(Param("lnf_b", {d}));
  p.push_back(Param("head", {d, vocab}));
  p.push_back(Param("head_b", {vocab}));
  std::mt19937_64 g(c.seed);
  for (LmParam& q : p) {
    const bool ln_weight = q.name.find("_w") != std::string::npos && q.shape.size() == 1;
    if (ln_weight) {
      std::fill(q.values.begin(), q.values.end(), 1.0f);
    } else if (q.shape.size() == 1) {
      std::fill(q.values.begin(), q.values.end(), 0.0f);  // biases
    } else {
      // Embeddings N(0, 1)-like in scale 0.1 (uniform); linear layers
      // uniform in +-1/sqrt(in).
      const bool emb = q.name.find("emb") != std::string::npos;
      const float bound = emb ? 0.1f : 1.0f / std::sqrt(static_cast<float>(q.shape[0]));
      for (float& v : q.values) v = bound * (Unit(g) * 2.0f - 1.0f);
    }
  }
  return p;
}

std::vector<float> CausalMask(int64_t context) {
  std::vector<float> m(static_cast<size_t>(context * context), 0.0f);
  for (int64_t i = 0; i < context; ++i) {
    for (int64_t j = i + 1; j < context; ++j) m[static_cast<size_t>(i * context + j)] = -1e9f;
  }
  return m;
}

}  // namespace eagervm::models
