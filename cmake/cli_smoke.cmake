# CLI smoke test: --help, --version and info succeed; an unknown command fails with status 2.
foreach(args "--help" "--version" "info" "eigh --help" "demo --help"
             "eigh --batch 64 --n 5 --dtype f64 --check" "eigh --batch=5 --n=4 --dtype=f32"
             "train-demo --help")
  separate_arguments(argv UNIX_COMMAND "${args}")
  execute_process(COMMAND ${CLI} ${argv} RESULT_VARIABLE rc OUTPUT_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "ctorch ${args} exited with ${rc}")
  endif()
endforeach()
foreach(args "no-such-command" "eigh --dtype i32" "eigh --n 0" "eigh --bogus" "eigh --n 3x"
             "eigh --batch 1e3" "eigh --n abc" "eigh --n" "eigh --batch=" "eigh --n 99999999999999999999"
             "train-demo --epochs 0" "train-demo --epochs" "train-demo --bogus"
             "train-demo --optim lbfgs" "train-demo --optim" "train-demo --captured --foreach --optim adam"
             "demo --bogus" "info extra")
  separate_arguments(argv UNIX_COMMAND "${args}")
  execute_process(COMMAND ${CLI} ${argv} RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  if(NOT rc EQUAL 2)
    message(FATAL_ERROR "ctorch ${args} exited with ${rc}, want 2")
  endif()
endforeach()
# eigh --check must report a residual within the accuracy bound (4 n eps)
execute_process(COMMAND ${CLI} eigh --batch 256 --n 3 --check OUTPUT_VARIABLE out RESULT_VARIABLE rc)
string(REGEX MATCH "worst residual ([0-9.]+)" m "${out}")
if(NOT rc EQUAL 0 OR NOT m OR CMAKE_MATCH_1 GREATER 4)
  message(FATAL_ERROR "ctorch eigh --check: rc=${rc} output: ${out}")
endif()
# A context that cannot be created explains itself: forcing an ISA above the (capped) CPU's best.
execute_process(COMMAND ${CMAKE_COMMAND} -E env CT_CPU_ISA=AVX512 CT_CPU_ISA_MAX=avx2 ${CLI} info
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT err MATCHES "asks for ISA avx512, but this CPU supports at most avx2")
  message(FATAL_ERROR "ctorch info with an unavailable ISA: rc=${rc} stderr: ${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env CT_CPU_ISA=Ref ${CLI} info
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "cpu isa: +ref")
  message(FATAL_ERROR "ctorch info with CT_CPU_ISA=Ref (names are case-insensitive): rc=${rc} ${out}${err}")
endif()
# a bad number names the option
execute_process(COMMAND ${CLI} eigh --n 3x RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT err MATCHES "--n needs a whole number" OR NOT err MATCHES "'3x'")
  message(FATAL_ERROR "ctorch eigh --n 3x: ${err}")
endif()
execute_process(COMMAND ${CLI} demo --help RESULT_VARIABLE rc OUTPUT_VARIABLE out)
if(NOT out MATCHES "MX quantization" OR NOT out MATCHES "eigh" OR NOT out MATCHES "graphs")
  message(FATAL_ERROR "ctorch demo --help does not list what the demo shows: ${out}")
endif()
# train-demo: a missing data file is a clear runtime error; a short run trains (loss falls)
execute_process(COMMAND ${CLI} train-demo --data /nonexistent/digits.bin RESULT_VARIABLE rc
  OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT err MATCHES "cannot read")
  message(FATAL_ERROR "ctorch train-demo --data /nonexistent: rc=${rc} ${err}")
endif()
execute_process(COMMAND ${CLI} train-demo --epochs 5 --captured RESULT_VARIABLE rc OUTPUT_VARIABLE out
  ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "captured one training step" OR NOT out MATCHES "test accuracy")
  message(FATAL_ERROR "ctorch train-demo --epochs 5: rc=${rc} ${out}${err}")
endif()
# Every optimizer: 30 epochs reach >= 95% held-out accuracy (the last line's format is fixed), and
# the per-epoch losses are the same bits for fused eager, foreach eager and fused captured (the
# captured step replays forward, backward and the fused optimizer; "seconds" differs, so the last
# line is compared without it).
foreach(opt sgd adam adamw adagrad)
  set(ref "")
  foreach(mode "--fused" "--foreach" "--captured")
    execute_process(COMMAND ${CLI} train-demo --optim ${opt} ${mode} RESULT_VARIABLE rc
      OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "train-demo --optim ${opt} ${mode}: rc=${rc} ${err}")
    endif()
    if(NOT out MATCHES "train digits epochs=30 test_accuracy=(0\\.9[5-9][0-9]*|1\\.0+) seconds=[0-9.]+\n$")
      message(FATAL_ERROR "train-demo --optim ${opt} ${mode}: below 95% or bad last line:\n${out}")
    endif()
    string(REGEX MATCHALL "epoch +[0-9]+ +mean loss [^\n]*" losses "${out}")
    if(ref STREQUAL "")
      set(ref "${losses}")
    elseif(NOT losses STREQUAL ref)
      message(FATAL_ERROR "train-demo --optim ${opt} ${mode}: losses differ from --fused eager:\n${losses}\nvs\n${ref}")
    endif()
  endforeach()
endforeach()
# Program commands: export-demo, inspect, export-weights, run (with .npy in and out), and their
# errors (a missing or unknown input, an out-of-range batch, a damaged file).
set(tmp ${CMAKE_CURRENT_BINARY_DIR}/cli_smoke_export)
file(MAKE_DIRECTORY ${tmp})
foreach(args "export-demo ${tmp}/d.ctp" "inspect ${tmp}/d.ctp" "export-weights ${tmp}/d.ctp ${tmp}/w.safetensors"
             "export-demo --help" "inspect --help" "run --help" "export-weights --help")
  separate_arguments(argv UNIX_COMMAND "${args}")
  execute_process(COMMAND ${CLI} ${argv} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "ctorch ${args} exited with ${rc}: ${err}")
  endif()
  if(args MATCHES "^inspect ${tmp}" AND NOT out MATCHES "symbol    batch in \\[1, 64\\]"
     OR args MATCHES "^inspect ${tmp}" AND NOT out MATCHES "F4|float4_e2m1fn")
    message(FATAL_ERROR "ctorch inspect: unexpected output:\n${out}")
  endif()
endforeach()
execute_process(COMMAND ${CLI} run ${tmp}/d.ctp --input x=${tmp}/missing.npy RESULT_VARIABLE rc
  OUTPUT_QUIET ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT err MATCHES "missing.npy")
  message(FATAL_ERROR "ctorch run with a missing .npy: rc=${rc} ${err}")
endif()
foreach(args "run ${tmp}/d.ctp" "run ${tmp}/d.ctp --input x" "run ${tmp}/d.ctp --bogus a=b" "export-demo")
  separate_arguments(argv UNIX_COMMAND "${args}")
  execute_process(COMMAND ${CLI} ${argv} RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  if(NOT rc EQUAL 2)
    message(FATAL_ERROR "ctorch ${args} exited with ${rc}, want 2")
  endif()
endforeach()
file(WRITE ${tmp}/bad.ctp "CTPROG\r\n this is not a program")
execute_process(COMMAND ${CLI} inspect ${tmp}/bad.ctp RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT err MATCHES "program: ")
  message(FATAL_ERROR "ctorch inspect of a damaged file: rc=${rc} ${err}")
endif()
# Weight files: inspect and convert a checkpoint torch 1.13 wrote (the fuzz corpus's ck_pt, no
# extension: recognised as a ZIP archive) and an .npz NumPy wrote, through safetensors, .pt, .npz.
set(ck ${SRC}/fuzz/corpus/torch_load/ck_pt)
execute_process(COMMAND ${CLI} inspect ${ck} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "optimizer.param_groups.0.lr +float +0.001"
   OR NOT out MATCHES "model.0.weight +tensor float32 +\\[2, 3\\]")
  message(FATAL_ERROR "ctorch inspect of a checkpoint: rc=${rc}\n${out}${err}")
endif()
set(npz ${SRC}/fuzz/corpus/npz/npz_stored)
foreach(step "${ck} ${tmp}/ck.pt" "${npz} ${tmp}/x.safetensors" "${tmp}/x.safetensors ${tmp}/x.pt"
             "${tmp}/x.pt ${tmp}/x2.safetensors" "${tmp}/x.pt ${tmp}/x.npz")
  separate_arguments(argv UNIX_COMMAND "convert ${step}")
  execute_process(COMMAND ${CLI} ${argv} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "wrote .*: [0-9]+ tensors")
    message(FATAL_ERROR "ctorch convert ${step}: rc=${rc}\n${out}${err}")
  endif()
endforeach()
file(READ ${tmp}/x.safetensors a HEX)
file(READ ${tmp}/x2.safetensors b HEX)
if(NOT a STREQUAL b)
  message(FATAL_ERROR "ctorch convert: safetensors -> .pt -> safetensors changed the file")
endif()
# bfloat16 has no NumPy dtype, complex none in safetensors; a .npy holds one tensor
foreach(step "${tmp}/ck.pt ${tmp}/ck.npz|bfloat16" "${tmp}/ck.pt ${tmp}/ck.safetensors|complex128"
             "${npz} ${tmp}/x.npy|holds 3 tensors")
  string(REPLACE "|" ";" parts "${step}")
  list(GET parts 0 args)
  list(GET parts 1 want)
  separate_arguments(argv UNIX_COMMAND "convert ${args}")
  execute_process(COMMAND ${CLI} ${argv} RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
  if(rc EQUAL 0 OR NOT err MATCHES "${want}")
    message(FATAL_ERROR "ctorch convert ${args}: rc=${rc} ${err}")
  endif()
endforeach()
