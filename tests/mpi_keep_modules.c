/* Linked into the MPI test and example binaries (not the library): keeps Open MPI's dynamically
 * loaded components mapped to the end of the process, so LeakSanitizer can name the allocations
 * they keep past MPI_Finalize (tests/data/lsan_mpi.supp suppresses those by module) instead of
 * showing "<unknown module>" frames that no suppression can match. */
int dlclose(void *handle);
int dlclose(void *handle) {
    (void)handle;
    return 0;
}
