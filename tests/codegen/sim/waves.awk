# Summarizes a flyc-sim --trace=2 log of one workgroup: per wave, how many
# MFMAs, v_exp_f32, s_barrier and s_setprio it executed.
# Trace lines look like "[wg 0,0,0 w1] kernel+0x10 exec=...: v_exp_f32_e32 v1, v2".
/^\[wg / {
	w = $3; sub(/^w/, "", w); sub(/\]$/, "", w)
	seen[w] = 1
	i = index($0, ": ")
	op = substr($0, i + 2); sub(/ .*/, "", op)
	if (op ~ /^v_mfma/) mfma[w]++
	else if (op ~ /^v_exp_f32/) ex[w]++
	else if (op == "s_barrier") bar[w]++
	else if (op == "s_setprio") prio[w]++
}
END {
	for (w = 0; w in seen; w++)
		printf "wave %d: mfma=%d exp=%d barrier=%d setprio=%d\n", w, mfma[w], ex[w], bar[w], prio[w]
}
