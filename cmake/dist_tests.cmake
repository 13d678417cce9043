# The distributed tests and examples: each runs under mpirun on 1..4 processes (as root in CI:
# --allow-run-as-root; --oversubscribe for more ranks than cores). Included from CMakeLists.txt
# when CT_WITH_MPI is on.
find_program(CT_MPIEXEC NAMES mpirun mpiexec REQUIRED)
set(CT_MPI_FLAGS --oversubscribe)
execute_process(COMMAND ${CT_MPIEXEC} --version OUTPUT_VARIABLE ct_mpi_ver ERROR_QUIET)
if(ct_mpi_ver MATCHES "Open MPI|OpenRTE")
  list(APPEND CT_MPI_FLAGS --allow-run-as-root)
else()
  set(CT_MPI_FLAGS) # MPICH's hydra needs neither
endif()
# Open MPI keeps some allocations to process exit; the sanitizers check ctorch, not MPI.
# (tests/mpi_keep_modules.c keeps its components loaded so the suppressions can name them)
set(ct_dist_env "LSAN_OPTIONS=suppressions=${CMAKE_SOURCE_DIR}/tests/data/lsan_mpi.supp:print_suppressions=0")

add_executable(test_dist tests/test_dist.c tests/mpi_keep_modules.c)
target_include_directories(test_dist PRIVATE ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/tests)
target_link_libraries(test_dist PRIVATE ctorch_dist)
foreach(np 1 2 3 4)
  add_test(NAME test_dist_np${np} COMMAND ${CT_MPIEXEC} ${CT_MPI_FLAGS} -np ${np} $<TARGET_FILE:test_dist>)
  set_tests_properties(test_dist_np${np} PROPERTIES FAIL_REGULAR_EXPRESSION "[1-9][0-9]* failed"
    ENVIRONMENT "${ct_dist_env}" TIMEOUT 300 PROCESSORS 2)
endforeach()
# the plain MPI path (no shared memory), and shared memory without cross-memory attach
foreach(np 2 3)
  add_test(NAME test_dist_mpi_np${np} COMMAND ${CT_MPIEXEC} ${CT_MPI_FLAGS} -np ${np} $<TARGET_FILE:test_dist>)
  set_tests_properties(test_dist_mpi_np${np} PROPERTIES FAIL_REGULAR_EXPRESSION "[1-9][0-9]* failed"
    ENVIRONMENT "${ct_dist_env};CT_DIST_SHM=0" TIMEOUT 300 PROCESSORS 2)
endforeach()
add_test(NAME test_dist_nocma_np2 COMMAND ${CT_MPIEXEC} ${CT_MPI_FLAGS} -np 2 $<TARGET_FILE:test_dist>)
set_tests_properties(test_dist_nocma_np2 PROPERTIES FAIL_REGULAR_EXPRESSION "[1-9][0-9]* failed"
  ENVIRONMENT "${ct_dist_env};CT_DIST_CMA=0" TIMEOUT 300 PROCESSORS 2)
# a rank that stalls: the others return CT_ERR_TIMEOUT (test_dist --stall checks it); a rank
# that dies: the launcher ends the job (mpirun exits non-zero, nothing hangs)
add_test(NAME test_dist_stall COMMAND ${CT_MPIEXEC} ${CT_MPI_FLAGS} -np 3 $<TARGET_FILE:test_dist> --stall)
set_tests_properties(test_dist_stall PROPERTIES FAIL_REGULAR_EXPRESSION "[1-9][0-9]* failed"
  PASS_REGULAR_EXPRESSION "stall: 2 ranks timed out" ENVIRONMENT "${ct_dist_env}" TIMEOUT 120)
string(REPLACE ";" " " ct_mpi_flags_str "${CT_MPI_FLAGS}")
add_test(NAME test_dist_die COMMAND ${CMAKE_COMMAND} -DMPIEXEC=${CT_MPIEXEC} "-DFLAGS=${ct_mpi_flags_str}"
  -DEXE=$<TARGET_FILE:test_dist> -P ${CMAKE_SOURCE_DIR}/cmake/dist_die.cmake)
set_tests_properties(test_dist_die PROPERTIES ENVIRONMENT "${ct_dist_env}" TIMEOUT 90)

file(GLOB CT_DIST_EXAMPLES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/examples/dist/*.c)
foreach(src ${CT_DIST_EXAMPLES})
  get_filename_component(name ${src} NAME_WE)
  add_executable(example_${name} ${src} ${CMAKE_SOURCE_DIR}/tests/mpi_keep_modules.c)
  target_link_libraries(example_${name} PRIVATE ctorch_dist)
  target_compile_definitions(example_${name} PRIVATE CT_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
  foreach(np 1 2 4)
    add_test(NAME example_${name}_np${np} COMMAND ${CT_MPIEXEC} ${CT_MPI_FLAGS} -np ${np} $<TARGET_FILE:example_${name}>)
    set_tests_properties(example_${name}_np${np} PROPERTIES ENVIRONMENT "${ct_dist_env}" TIMEOUT 600
      PROCESSORS 2)
  endforeach()
endforeach()
