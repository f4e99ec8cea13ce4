// docs/architecture.md, "Life of an op call": every step names a file that
// exists and a function that file declares or defines, so the walk cannot
// drift from the code unnoticed (a rename or a move fails here).
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string SourceRoot() {
  std::string src = __FILE__;  // <source>/tests/life_of_an_op_test.cc
  src = src.substr(0, src.rfind('/'));
  return src.substr(0, src.rfind('/'));
}

std::string Read(const std::string& path) {
  std::ifstream in(path);
  if (!in.good()) return {};
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Step {
  int number;
  std::string file;
  std::string function;
};

// The rows "| N | `file` | `function` | ... |" of the section.
std::vector<Step> Steps(const std::string& doc) {
  const size_t begin = doc.find("\n## Life of an op call\n");
  if (begin == std::string::npos) return {};
  size_t end = doc.find("\n## ", begin + 1);
  if (end == std::string::npos) end = doc.size();
  std::istringstream section(doc.substr(begin, end - begin));
  static const std::regex row(R"(^\| (\d+) \| `([^`]+)` \| `([^`]+)` \|)");
  std::vector<Step> steps;
  std::smatch m;
  for (std::string line; std::getline(section, line);) {
    if (std::regex_search(line, m, row)) steps.push_back({std::stoi(m[1]), m[2], m[3]});
  }
  return steps;
}

// Whether `code` declares or defines `function` ("Class::Name" or "Name"):
// the name followed by "(" (a call alone would do too, which the
// qualified form narrows: the class must be named in the same file).
bool Mentions(const std::string& code, const std::string& function) {
  const size_t colon = function.rfind("::");
  const std::string name = colon == std::string::npos ? function : function.substr(colon + 2);
  const std::regex decl("\\b" + name + "(<[^>]*>)?\\(");
  if (!std::regex_search(code, decl)) return false;
  if (colon == std::string::npos) return true;
  const std::string cls = function.substr(0, colon);
  return std::regex_search(code, std::regex("\\b(class|struct) " + cls + "\\b")) ||
         code.find(function + "(") != std::string::npos;
}

TEST(LifeOfAnOpCall, EveryStepNamesAFileAndAFunctionInIt) {
  const std::string root = SourceRoot();
  const std::string doc = Read(root + "/docs/architecture.md");
  ASSERT_FALSE(doc.empty()) << "cannot read " << root << "/docs/architecture.md";
  const std::vector<Step> steps = Steps(doc);
  ASSERT_GE(steps.size(), 10u) << "no \"Life of an op call\" table in docs/architecture.md";
  for (size_t i = 0; i < steps.size(); ++i) {
    const Step& s = steps[i];
    EXPECT_EQ(s.number, static_cast<int>(i) + 1) << "steps are numbered 1, 2, ...";
    const std::string code = Read(root + "/" + s.file);
    if (code.empty()) {
      ADD_FAILURE() << "step " << s.number << ": " << s.file << " does not exist";
      continue;
    }
    EXPECT_TRUE(Mentions(code, s.function))
        << "step " << s.number << ": " << s.file << " has no function " << s.function;
  }
}

// The check itself bites: a function a file does not have, a missing file.
TEST(LifeOfAnOpCall, TheCheckRejectsWrongNames) {
  const std::string root = SourceRoot();
  const std::string engine = Read(root + "/src/vm/engine/engine.cc");
  ASSERT_FALSE(engine.empty());
  EXPECT_TRUE(Mentions(engine, "Engine::Schedule"));
  EXPECT_FALSE(Mentions(engine, "Engine::NoSuchStep"));
  EXPECT_FALSE(Mentions(engine, "SubmissionQueue::AppendOne"));
  EXPECT_TRUE(Read(root + "/src/vm/engine.cc").empty());
}

}  // namespace
