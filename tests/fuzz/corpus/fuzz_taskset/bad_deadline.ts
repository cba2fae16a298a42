1ms 10ms
2ms 5ms 6ms
