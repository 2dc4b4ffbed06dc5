# expect: compile_error
# message: KeyboardInterrupt
raise KeyboardInterrupt
