// Must not compile: the MPI transport moves buffers; it knows nothing of the VM.
#include "vm/engine/instruction.h"
