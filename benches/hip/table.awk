# The comparison table of benches/hip/run.sh: joins the HIP programs' and the Aqueduct
# bench's `RESULT metric value unit` lines by metric, in the Aqueduct side's order.
#   awk -v hipfile=HIP_RESULTS -f table.awk AQUEDUCT_RESULTS
# Columns: metric, unit, HIP, Aqueduct, ratio. ratio > 1 means Aqueduct is faster: for
# times (unit "us", lower is better) HIP / Aqueduct, for rates Aqueduct / HIP. "-" where a
# side did not report.
BEGIN {
    while ((getline line < hipfile) > 0) {
        split(line, f, " ")
        if (f[1] == "RESULT") hip[f[2]] = f[3]
    }
}
$1 == "RESULT" {
    metric = $2; aq = $3; unit = $4
    h = (metric in hip) ? hip[metric] : "-"
    ratio = "-"
    if (h != "-" && h + 0 > 0 && aq + 0 > 0)
        ratio = sprintf("%.2f", unit == "us" ? h / aq : aq / h)
    rows[++n] = sprintf("%-30s %-8s %12s %12s %8s", metric, unit, h, aq, ratio)
}
END {
    printf "%-30s %-8s %12s %12s %8s\n", "metric", "unit", "HIP", "Aqueduct", "ratio"
    for (i = 1; i <= n; i++) print rows[i]
}
