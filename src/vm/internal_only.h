// Included first by every vm header that is not exported (src/vm/README.md,
// "Exported headers"), outside its include guard, so the check runs at every
// #include. A layer built with EAGERVM_EXPORTED_ONLY_VM (the layer table's
// EXPORTED_ONLY vm, src/CMakeLists.txt) may include vm's exported headers
// only; they include the rest between push_macro/pop_macro of
// EAGERVM_VM_EXPORTING. No include guard, on purpose.
#if defined(EAGERVM_EXPORTED_ONLY_VM) && !defined(EAGERVM_VM_EXPORTING)
#error \
    "eagervm layering: this layer may include only vm's exported headers (vm/intake.h, vm/tensor_impl.h, vm/kernel_call.h, vm/kernel_args.h; src/vm/README.md)"
#endif
