# plot.gp - the benchmark's figures from DIR/plot.dat (written by bench).
#   gnuplot -e "dir='bench/results'; n=CANDIDATES" bench/plot.gp
# bench.png: ns/call vs size, one panel per (alignment, fill), log-log.
# speedup.png: glibc time / candidate time, same panels, log x.
if (!exists("dir")) dir = 'bench/results'
data = dir.'/plot.dat'
# n: the number of candidates (columns: size, n times ns, n speedups)
set datafile commentschars '#'
set key autotitle columnhead
set logscale x 2
set grid
set key outside right top font ',8' spacing 0.9
set xlabel 'size (bytes)'
set format x '%.0s%cB'
titles = "'aligned, fill 0x5a' 'aligned, fill 0' 'misaligned (+3), fill 0x5a' 'misaligned (+3), fill 0'"

set terminal pngcairo size 1600,1100 font ",9" noenhanced
set datafile missing '?'
set output dir.'/bench.png'
set multiplot layout 2,2 title 'memset ns/call (median), hot cache, size unknown to the compiler'
set logscale y 10
set ylabel 'ns/call'
do for [b=0:3] {
	set title word(titles, b + 1)
	plot for [i=2:n] data index b using 1:i with linespoints pt 7 ps 0.5 lw (i == 2 ? 3 : 1)
}
unset multiplot

set output dir.'/speedup.png'
set multiplot layout 2,2 title 'speedup vs glibc memset (glibc ns / candidate ns; above 1 = faster)'
unset logscale y
set yrange [0:*]
set ylabel 'speedup'
do for [b=0:3] {
	set title word(titles, b + 1)
	plot for [i=n+3:2*n] data index b using 1:i with linespoints pt 7 ps 0.5, 1 with lines lc 'black' lw 2 notitle
}
unset multiplot
