# Install rules: the library, its public headers (with the generated
# version.h), and a CMake package (eagervmConfig.cmake, a version file and the
# exported target eagervm::eagervm).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(EAGERVM_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/eagervm)

install(TARGETS eagervm EXPORT eagervmTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/eagervm
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
install(FILES ${EAGERVM_GENERATED_INCLUDE_DIR}/eagervm/version.h
  ${EAGERVM_GENERATED_INCLUDE_DIR}/eagervm/dlpack_config.h
  ${EAGERVM_GENERATED_INCLUDE_DIR}/eagervm/distributed_config.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/eagervm)
install(EXPORT eagervmTargets NAMESPACE eagervm:: DESTINATION ${EAGERVM_CMAKE_INSTALL_DIR})

if(BUILD_SHARED_LIBS)
  set(EAGERVM_CONFIG_SHARED ON)
else()
  set(EAGERVM_CONFIG_SHARED OFF)
endif()
if(EAGERVM_WITH_CUDA)
  set(EAGERVM_CONFIG_WITH_CUDA ON)
else()
  set(EAGERVM_CONFIG_WITH_CUDA OFF)
endif()
if(EAGERVM_WITH_MPI)
  set(EAGERVM_CONFIG_WITH_MPI ON)
else()
  set(EAGERVM_CONFIG_WITH_MPI OFF)
endif()
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/eagervmConfig.cmake.in
  ${PROJECT_BINARY_DIR}/eagervmConfig.cmake
  INSTALL_DESTINATION ${EAGERVM_CMAKE_INSTALL_DIR})
# 0.x: a minor release may break the API, so only the same minor matches.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/eagervmConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/eagervmConfig.cmake
  ${PROJECT_BINARY_DIR}/eagervmConfigVersion.cmake
  DESTINATION ${EAGERVM_CMAKE_INSTALL_DIR})
