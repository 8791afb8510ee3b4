# Loaded by the elect-check tests after helper: running elect-check and
# asserting its reports.

# check ARGS...: elect-check, with its reports (stdout) in $output and
# $lines, its summary in $stderr.
check() {
	run --separate-stderr elect-check "$@"
}

# reports "FILE:LINE: NAME" ...: exactly these reports, in this order.
reports() {
	local i=0 want
	for want in "$@"; do
		assert_regex "${lines[$i]}" "^$want: "
		i=$((i + 1))
	done
	assert_equal "${#lines[@]}" "$#"
}
