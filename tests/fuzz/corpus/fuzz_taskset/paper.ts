# the paper's Section IV task set: WCET PERIOD [DEADLINE [PRIORITY]]
1ms 10ms
1ms 12ms - 80
1500us 15ms 14ms 70
2ms 20ms
3ms 36ms
