# test_dist_die: one rank exits without a word in the middle of the job; the launcher must end the
# job (non-zero exit) within the timeout, after the rank said it was going, and no survivor may
# come back from its barrier as if nothing happened. Run as cmake -DMPIEXEC=... -DFLAGS=... -DEXE=...
separate_arguments(flags UNIX_COMMAND "${FLAGS}")
string(TIMESTAMP t0 "%s")
execute_process(COMMAND ${MPIEXEC} ${flags} -np 2 ${EXE} --die RESULT_VARIABLE rc
  OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
string(TIMESTAMP t1 "%s")
math(EXPR dt "${t1} - ${t0}")
message("${out}${err}")
if(rc EQUAL 0)
  message(FATAL_ERROR "the job exited 0 although a rank died")
endif()
if(NOT out MATCHES "die: rank 1 exits now")
  message(FATAL_ERROR "the dying rank never got to its exit (rc ${rc})")
endif()
if(out MATCHES "die: rank 0 returned")
  message(FATAL_ERROR "a survivor returned from the barrier")
endif()
if(dt GREATER 30)
  message(FATAL_ERROR "the job took ${dt} s to end")
endif()
message("test_dist_die: the job ended (rc ${rc}) ${dt} s after start")
