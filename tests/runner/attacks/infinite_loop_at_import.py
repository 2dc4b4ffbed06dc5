# expect: time_limit_exceeded
while True:
    pass
