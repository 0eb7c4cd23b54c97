# Writes OUTPUT, a header defining TOKBENCH_GIT_COMMIT as the short commit of SOURCE_DIR with
# "-dirty" after it when tracked files differ from that commit, or "unknown" outside git. Run at
# every build: a value read at configure time stays that of the first commit an existing build
# folder saw. The header is only replaced when the value changes, so an unchanged commit
# recompiles nothing.
execute_process(
  COMMAND git rev-parse --short HEAD
  WORKING_DIRECTORY ${SOURCE_DIR}
  OUTPUT_VARIABLE commit
  OUTPUT_STRIP_TRAILING_WHITESPACE
  RESULT_VARIABLE status
  ERROR_QUIET)
if(NOT status EQUAL 0 OR commit STREQUAL "")
  set(commit unknown)
else()
  execute_process(
    COMMAND git status --porcelain --untracked-files=no
    WORKING_DIRECTORY ${SOURCE_DIR}
    OUTPUT_VARIABLE changes
    RESULT_VARIABLE status
    ERROR_QUIET)
  if(NOT status EQUAL 0 OR NOT changes STREQUAL "")
    string(APPEND commit "-dirty")
  endif()
endif()
file(WRITE ${OUTPUT}.new "#define TOKBENCH_GIT_COMMIT \"${commit}\"\n")
file(COPY_FILE ${OUTPUT}.new ${OUTPUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUTPUT}.new)
