# ns-2.35 reference for tcplab's RED (crates/tcplab-sim/src/queue/red.rs, which follows
# ns-2.35 queue/red.cc): N long-lived one-way Agent/TCP/Reno flows (Agent/TCPSink, an ACK
# per segment) through a 10 Mbit/s, 20 ms RED bottleneck in packet mode.
#   ns red.tcl <variant> <seed> <outdir>      variant: plain | gentle | ecn
# Writes <outdir>/<variant>-<seed>.json and <variant>-<seed>.arrivals.txt (every arrival
# at the RED queue, for the queue-only replay); the seed is ns-2's defaultRNG seed, which
# RED's Random::uniform() draws from. The JSON holds: arrivals, drops, marks and the mean queue at the
# bottleneck from a QueueMonitor (packets in/out/dropped), the 10 ms-sampled queue, the
# mean over arrivals of RED's average (its `ave_` trace) and of the backlog each arrival
# found (`curq_`, from the queue trace), and each sender's counters.
#
# Topology (all links duplex): s_i -(100 Mbit/s, d_i)- r1 =(10 Mbit/s, 20 ms)= r2 -(100 Mbit/s, 1 ms)- k_i
# d_i = 1, 3, 5, 7, 9 ms (different RTTs, so the flows do not synchronise trivially);
# flow i starts at i * 0.1 s; the run lasts 100 s; statistics over the whole run (tcplab reports whole-run figures).
# With `ecn` the senders set ECT (Agent/TCP ecn_ 1) and RED marks (setbit_ true).

if {$argc != 3} { puts stderr "usage: ns red.tcl plain|gentle|ecn SEED OUTDIR"; exit 2 }
set variant [lindex $argv 0]
set seed [lindex $argv 1]
set outdir [lindex $argv 2]
global defaultRNG
$defaultRNG seed $seed

set N 5
set duration 100.0
set warmup 0.0

# RED as in the brief: min_th 5, max_th 15 packets, q_weight 0.002, max_p 0.1, packet mode.
Queue/RED set thresh_ 5
Queue/RED set maxthresh_ 15
Queue/RED set q_weight_ 0.002
Queue/RED set linterm_ 10
Queue/RED set bytes_ false
Queue/RED set queue_in_bytes_ false
Queue/RED set wait_ true
Queue/RED set mean_pktsize_ 500
Queue/RED set gentle_ [expr {$variant eq "gentle"}]
Queue/RED set setbit_ [expr {$variant eq "ecn"}]

Agent/TCP set packetSize_ 1000
Agent/TCP set window_ 1000
Agent/TCP set ecn_ [expr {$variant eq "ecn"}]

set ns [new Simulator]
$ns use-scheduler Heap

set r1 [$ns node]
set r2 [$ns node]
$ns duplex-link $r1 $r2 10Mb 20ms RED
$ns queue-limit $r1 $r2 100
set delays {1ms 3ms 5ms 7ms 9ms}
for {set i 0} {$i < $N} {incr i} {
    set s($i) [$ns node]
    set k($i) [$ns node]
    $ns duplex-link $s($i) $r1 100Mb [lindex $delays $i] DropTail
    $ns duplex-link $r2 $k($i) 100Mb 1ms DropTail
    $ns queue-limit $s($i) $r1 10000
    $ns queue-limit $r2 $k($i) 10000
    set tcp($i) [new Agent/TCP/Reno]
    set sink($i) [new Agent/TCPSink]
    $ns attach-agent $s($i) $tcp($i)
    $ns attach-agent $k($i) $sink($i)
    $ns connect $tcp($i) $sink($i)
    set ftp($i) [new Application/FTP]
    $ftp($i) attach-agent $tcp($i)
    $ns at [expr {$i * 0.1}] "$ftp($i) start"
}

set redq [[$ns link $r1 $r2] queue]
set tf [open "$outdir/$variant-$seed.red.tr" w]
$redq trace ave_
$redq attach $tf
# Every packet event at the RED queue: "+" arrival, "d" drop, "-" start of transmission.
set qt [open "$outdir/$variant-$seed.q.tr" w]
$ns trace-queue $r1 $r2 $qt

set qmon [$ns monitor-queue $r1 $r2 [open /dev/null w] 0.1]

# The instantaneous queue (packets waiting, not the one being sent) every 10 ms from the
# end of the warm-up: tcplab's `queue_packets` time series at a 10 ms interval.
set ::qsamples 0
set ::qsum 0.0
proc sample {} {
    global ns qmon duration
    incr ::qsamples
    set ::qsum [expr {$::qsum + [$qmon set pkts_]}]
    set next [expr {[$ns now] + 0.01}]
    if {$next < $duration - 1e-9} { $ns at $next "sample" }
}
$ns at $warmup "sample"

# Counters at the end of the warm-up, subtracted at the end.
proc snapshot {} {
    global qmon
    return [list [$qmon set parrivals_] [$qmon set pdrops_] [$qmon set pdepartures_]]
}
set ::t0 {}
$ns at $warmup {set ::t0 [snapshot]}

proc finish {} {
    global ns tf qt outdir variant seed warmup duration redq tcp N
    flush $tf
    close $tf
    flush $qt
    close $qt
    set t1 [snapshot]
    foreach {a0 d0 x0} $::t0 {}
    foreach {a1 d1 x1} $t1 {}
    # RED's ave_ trace: "a <t> <ave>" on every assignment that changes it, i.e. on every
    # arrival except while ave stays exactly 0 at the start: the sum over records divided
    # by the arrivals is the mean over arrivals.
    set na 0; set sa 0.0
    set f [open "$outdir/$variant-$seed.red.tr" r]
    while {[gets $f line] >= 0} {
        if {[lindex $line 1] < $warmup} continue
        if {[lindex $line 0] eq "a"} { incr na; set sa [expr {$sa + [lindex $line 2]}] }
    }
    close $f
    # The backlog each arrival found (ns-2's curq_, which as a TracedInt is traced only when
    # it changes, so it is rebuilt here from the queue trace); the arrivals, for the replay
    # (bench/red/README.md): the gap in us, then ",size" unless 1040 bytes.
    set q 0; set nq 0; set sq 0.0; set prev 0
    set f [open "$outdir/$variant-$seed.q.tr" r]
    set af [open "$outdir/$variant-$seed.arrivals.txt" w]
    while {[gets $f line] >= 0} {
        switch -- [lindex $line 0] {
            + {
                if {[lindex $line 1] >= $warmup} { incr nq; set sq [expr {$sq + $q}] }
                incr q
                set t [expr {round([lindex $line 1] * 1e6)}]
                set size [lindex $line 5]
                puts -nonewline $af [expr {$t - $prev}]
                if {$size != 1040} { puts -nonewline $af ",$size" }
                puts $af ""
                set prev $t
            }
            - - d { incr q -1 }
        }
    }
    close $f
    close $af
    file delete "$outdir/$variant-$seed.red.tr" "$outdir/$variant-$seed.q.tr"
    set arrivals [expr {$a1 - $a0}]
    set drops [expr {$d1 - $d0}]
    set fl {}
    for {set i 0} {$i < $N} {incr i} {
        lappend fl "\{\"data_pkts\": [$tcp($i) set ndatapack_], \"rexmit_pkts\": [$tcp($i) set nrexmitpack_], \"timeouts\": [$tcp($i) set nrexmit_], \"cwnd_cuts\": [$tcp($i) set ncwndcuts_]\}"
    }
    set out [open "$outdir/$variant-$seed.json" w]
    puts $out "\{"
    puts $out "  \"simulator\": \"ns-2.35 (Debian 2.35+dfsg)\","
    puts $out "  \"variant\": \"$variant\","
    puts $out "  \"seed\": $seed,"
    puts $out "  \"window_s\": \[$warmup, $duration\],"
    puts $out "  \"arrivals\": $arrivals,"
    puts $out "  \"drops\": $drops,"
    puts $out "  \"departures\": [expr {$x1 - $x0}],"
    puts $out "  \"drop_rate\": [expr {double($drops) / $arrivals}],"
    puts $out "  \"queue_samples\": $::qsamples,"
    puts $out "  \"mean_queue_sampled_pkts\": [expr {$::qsum / $::qsamples}],"
    puts $out "  \"ave_trace_records\": $na,"
    puts $out "  \"mean_ave_pkts\": [expr {$sa / $arrivals}],"
    puts $out "  \"mean_curq_pkts\": [expr {$sq / $nq}],"
    puts $out "  \"flows\": \[[join $fl ", "]\]"
    puts $out "\}"
    close $out
    exit 0
}
$ns at $duration "finish"
$ns run
