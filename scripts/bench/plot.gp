# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Pictures of the benchmark tables; scripts/bench/plot.sh writes the data
# files and calls this with -e:
#   dat   folder of the data files      out   folder for the PNGs
#   what  'gro', 'gro_fair' or 'xdp'
#   gro:  flows (the flow counts, blank-separated), cflows (those with
#         every copy mode), kind (quick | full)
#   xdp:  method (how it was timed), target (ratio the program aims below)

set terminal pngcairo size 1400,900 noenhanced font 'DejaVu Sans,11' linewidth 1.5
set grid ytics lc rgb '#dddddd'
set key top right box opaque
set border 3
set tics nomirror

c_verify = '#2166ac'
c_trust  = '#4dac26'
c_dpdk   = '#d6604d'
c_other  = '#888888'

if (what eq 'gro') {
	# --- Mpps against concurrent flows --------------------------------
	set output out.'/gro_flows.png'
	set multiplot layout 2,2 title sprintf("GRO on one core: xrx against DPDK rte_gro, TCPv4, MSS 1448, copy=header (%s run of gro_bench)", kind) font ',13'
	set logscale x 2
	set xtics ()
	do for [w in flows] { set xtics add (w w + 0) }
	set xlabel 'concurrent flows'
	set ylabel 'Mpps (segments per second, millions)'
	# Room on both sides, so the first and last flow counts get a tic.
	set xrange [0.7:word(flows, words(flows)) * 1.4]
	set yrange [0:*]
	set offsets 0, 0, graph 0.15, 0
	set key top center horizontal samplen 2 font ',10'
	panels = 'burst/batch burst/timeout rr/batch rr/timeout'
	descr = "'bursts of 16 per flow, flush at batch end' 'bursts of 16 per flow, flush by timeout' 'round robin, flush at batch end' 'round robin, flush by timeout'"
	do for [i = 1:4] {
		set title word(descr, i)
		plot dat.'/gro_flows.dat' index (i - 1) using 1:2 with linespoints pt 7 lc rgb c_verify title 'xrx, csum verify', \
		     ''                   index (i - 1) using 1:3 with linespoints pt 5 lc rgb c_trust title 'xrx, csum trust', \
		     ''                   index (i - 1) using 1:4 with linespoints pt 9 lc rgb c_dpdk title 'rte_gro (no csum check)'
	}
	unset multiplot
	unset logscale x
	unset xlabel
	set xrange [*:*]
	set offsets 0, 0, 0, 0
	set key top right vertical

	# --- copy modes ----------------------------------------------------
	set output out.'/gro_copy.png'
	set multiplot layout 1,2 title "Copy modes (TCPv4, MSS 1448, bursts, flush at batch end, csum trust so that copying is what differs)" font ',13'
	set style data histograms
	set style histogram clustered gap 1
	set style fill solid 0.85 border -1
	set boxwidth 0.9
	set xtics () nomirror
	nflows = words(cflows)
	set title 'throughput per copy mode'
	set ylabel 'Mpps'
	set yrange [0:*]
	set key top right title 'flows' width 2
	plot for [i = 1:nflows] dat.'/gro_copy.dat' using (column(i + 1)):xtic(1) title word(cflows, i)
	set title 'bytes copied per segment (log scale)'
	set ylabel 'bytes per segment'
	set logscale y
	set yrange [1:20000]
	set key off
	set style histogram clustered gap 1
	plot dat.'/gro_copy.dat' using (column(nflows + 2)):xtic(1) lc rgb c_verify notitle, \
	     ''                 using ($0):(column(nflows + 2) * 1.5):(sprintf('%.1f B, payload %.0f B', column(nflows + 2), column(nflows + 3))) with labels notitle
	unset multiplot
	unset logscale y
}

if (what eq 'gro_fair') {
	# --- the fair rows: same cache state, every flush cadence ----------
	set output out.'/gro_fair.png'
	set title sprintf("GRO, TCPv4 MSS 1448, header copy, checksums trusted (rte_gro checks none), same cache state on both sides (%s run)\nlabels: rte_gro ns / xrx ns (xrx is that many times faster)", kind) font ',13'
	set style data histograms
	set style histogram clustered gap 1.5
	set style fill solid 0.85 border -1
	set boxwidth 0.9
	set ylabel 'ns per segment (log scale)'
	set logscale y
	set yrange [10:*]
	set key top left
	set xtics nomirror
	set bmargin 5
	plot dat.'/gro_fair.dat' using 2:xtic(1) lc rgb c_trust title 'xrx', \
	     ''                  using 3 lc rgb c_dpdk title 'rte_gro', \
	     ''                  using ($0):($3 * 1.4):(sprintf('%.2fx', $4)) with labels font ',11' notitle
	unset logscale y
	set bmargin
}

if (what eq 'xdp') {
	set output out.'/xdp.png'
	set title sprintf("xrx_rx against a bare XSKMAP redirect, ns per frame (%s)\nlabels: xrx_rx / bare redirect, target below %.1f", method, target) font ',13'
	set style data histograms
	set style histogram clustered gap 1.5
	set style fill solid 0.85 border -1
	set boxwidth 0.9
	set ylabel 'ns per frame'
	set yrange [0:*]
	set offsets 0, 0, graph 0.12, 0
	set key top left
	set xtics nomirror rotate by -20
	plot dat.'/xdp.dat' using 2:xtic(1) lc rgb c_verify title 'xrx_rx, rule matches (redirect)', \
	     ''             using 3 lc rgb c_trust title 'xrx_rx, no rule (XDP_PASS)', \
	     ''             using 4 lc rgb c_other title 'bare bpf_redirect_map', \
	     ''             using ($0 - 1.0 / 4.5):($2 + 8):(sprintf('%.2fx', $5)) with labels font ',10' notitle
}
