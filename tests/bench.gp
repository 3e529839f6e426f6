# Cost against buffer size per policy, from the KIND.POLICY.dat files of
# `tests/judge.py bench` (size, median, min, max).  Run in the output directory with
#   gnuplot -e "policies='legacy upstream ...'" bench.gp
set terminal pngcairo size 900,560 noenhanced font "sans,10"
set logscale xy 2
set grid
set key top left
set xlabel "buffer size (bytes)"
set xtics ("64B" 64, "256B" 256, "1K" 1024, "4K" 4096, "16K" 16384, "64K" 65536)
set format y "%.0s%c"

set output "sync-poll.png"
set title "poll cycle: sync_for_cpu + sync_for_device (FROM_DEVICE), median, min-max bars"
set ylabel "ns per cycle (icount virtual time)"
plot for [p in policies] "poll.".p.".dat" using 1:2:3:4 with yerrorlines title p, \
	"memcpy.upstream.dat" using 1:2 with lines dashtype 2 lc "black" title "one memcpy"

set output "sync-rearm.png"
set title "re-arm cycle: sync_for_cpu, CPU writes 25%, sync_for_device (FROM_DEVICE)"
plot for [p in policies] "rearm.".p.".dat" using 1:2:3:4 with yerrorlines title p, \
	"memcpy.upstream.dat" using 1:2 with lines dashtype 2 lc "black" title "one memcpy"

set output "map.png"
set title "dma_map_benchmark FROM_DEVICE, 1 thread: map + unmap"
set ylabel "ns per map+unmap"
plot for [p in policies] "map-FROM_DEVICE.".p.".dat" using 1:2:3:4 with yerrorlines title p
