# Generates eagervm/version.h into the build tree's include directory (the
# library target adds it to its include path; install rules copy it).
set(EAGERVM_GENERATED_INCLUDE_DIR ${PROJECT_BINARY_DIR}/include)
configure_file(${CMAKE_CURRENT_LIST_DIR}/version.h.in
               ${EAGERVM_GENERATED_INCLUDE_DIR}/eagervm/version.h @ONLY)
