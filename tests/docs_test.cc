// The user docs (README.md, docs/*.md) and the public headers speak of the
// code alone: no paths outside the repository, no design-document sections,
// issue or session numbers. README.md links every page of docs/, and every
// relative link in the docs points to a file that exists.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

fs::path SourceDir() {
  return fs::path(__FILE__).parent_path().parent_path();  // <source>/tests/docs_test.cc
}

std::string Read(const fs::path& p) {
  std::ifstream in(p);
  EXPECT_TRUE(in.good()) << "cannot read " << p;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<fs::path> Files(const fs::path& dir, const std::string& ext) {
  std::vector<fs::path> out;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().extension() == ext) out.push_back(e.path());
  }
  return out;
}

std::vector<fs::path> DocPages() { return Files(SourceDir() / "docs", ".md"); }

// What a reader of the repository cannot follow: material outside it, and
// the history of its development.
struct Forbidden {
  const char* what;
  std::regex pattern;
};
std::vector<Forbidden> ForbiddenPatterns() {
  return {
      {"a path outside the repository", std::regex(R"(\.\./shared|/work/)")},
      {"a design-document reference", std::regex(R"(DESIGN ?§|DESIGN\.md|API\.md|PEERS\.md)")},
      {"an issue number", std::regex(R"([Ii]ssues? ?#?[0-9]+)")},
      {"a session number", std::regex(R"([Ss]essions? ?#?[0-9]+)")},
      {"a numbered round of work", std::regex(R"([Rr]ound (one|two|three|[0-9]+)\b)")},
      // How binaries reach a GPU machine with no network is a developer
      // procedure (scripts/README.md), not something a user of the library does.
      {"the packing procedure for a GPU machine", std::regex(R"(\.gpubin|\.gpudeps|gpu_pack)")},
  };
}

std::vector<std::string> Violations(const fs::path& file) {
  static const std::vector<Forbidden>* const patterns =
      new std::vector<Forbidden>(ForbiddenPatterns());
  std::vector<std::string> out;
  std::istringstream lines(Read(file));
  std::string line;
  for (int n = 1; std::getline(lines, line); ++n) {
    for (const Forbidden& f : *patterns) {
      if (std::regex_search(line, f.pattern)) {
        out.push_back(file.filename().string() + ":" + std::to_string(n) + ": " + f.what + ": " +
                      line);
      }
    }
  }
  return out;
}

TEST(Docs, ThereArePages) { EXPECT_GE(DocPages().size(), 10u); }

TEST(Docs, SpeakOfTheCodeAlone) {
  std::vector<fs::path> files = DocPages();
  files.push_back(SourceDir() / "README.md");
  for (const fs::path& h : Files(SourceDir() / "include" / "eagervm", ".h")) files.push_back(h);
  for (const fs::path& f : files) {
    for (const std::string& v : Violations(f)) ADD_FAILURE() << v;
  }
}

TEST(Docs, ReadmeLinksEveryPage) {
  const std::string readme = Read(SourceDir() / "README.md");
  for (const fs::path& page : DocPages()) {
    const std::string link = "(docs/" + page.filename().string() + ")";
    EXPECT_NE(readme.find(link), std::string::npos) << "README.md does not link " << link;
  }
}

TEST(Docs, RelativeLinksPointToFiles) {
  std::vector<fs::path> files = DocPages();
  files.push_back(SourceDir() / "README.md");
  // [text](target) or ![alt](target), without a scheme or an in-page anchor.
  const std::regex link(R"(\]\(([^)#:\s]+)(#[^)]*)?\))");
  for (const fs::path& f : files) {
    const std::string text = Read(f);
    for (std::sregex_iterator it(text.begin(), text.end(), link), end; it != end; ++it) {
      const fs::path target = f.parent_path() / (*it)[1].str();
      EXPECT_TRUE(fs::exists(target))
          << f.filename() << " links " << (*it)[1].str() << ", which does not exist";
    }
  }
}

// The checks above must be able to fail.
TEST(Docs, PatternsCatchWhatTheyShould) {
  const std::vector<std::string> bad = {
      "see ../shared/API.md", "as DESIGN §6 says",           "fixed in issue 15",
      "(issue #3)",           "Session 10 measured",         "round two of the review",
      "Issues 4 and 5",       "unpacks .gpubin/bins.tar.xz",
  };
  const std::vector<std::string> good = {
      "no silent rounding",
      "a session of use",
      "issues are reported",
      "round trip",
  };
  auto matches = [](const std::string& s) {
    for (const Forbidden& f : ForbiddenPatterns()) {
      if (std::regex_search(s, f.pattern)) return true;
    }
    return false;
  };
  for (const std::string& s : bad) EXPECT_TRUE(matches(s)) << s;
  for (const std::string& s : good) EXPECT_FALSE(matches(s)) << s;
}

}  // namespace
