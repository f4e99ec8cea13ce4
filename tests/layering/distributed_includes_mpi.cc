// Must not compile: the distributed front end reaches MPI only through
// dist::Communicator, made by the composition root.
#include "mpi/mpi_communicator.h"
