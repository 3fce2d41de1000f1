// empty: does nothing (dispatch latency measurements).
kernel void empty(void)
{
}
