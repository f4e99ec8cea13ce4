#include "base/view_attrs.h"

#include <vector>

#include "base/str_cat.h"

namespace eagervm::internal {
namespace {

const std::vector<std::string>* Names(const char* prefix) {
  auto* v = new std::vector<std::string>();  // never freed: used until exit
  for (int i = 0; i < 64; ++i) v->push_back(base::Cat(prefix, i));
  return v;
}

}  // namespace

const std::string& StridedShapeAttr(int input) {
  static const std::vector<std::string>* names = Names("__view_shape");
  return (*names)[static_cast<size_t>(input)];
}

const std::string& StridedStridesAttr(int input) {
  static const std::vector<std::string>* names = Names("__view_strides");
  return (*names)[static_cast<size_t>(input)];
}

}  // namespace eagervm::internal
