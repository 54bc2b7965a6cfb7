# ns-2.35 baseline of the BSF paper's section IV topology WITHOUT BSF (Choi, Yoo and Yoo;
# tcplab: scenarios/bsf/n5.toml run with `elements = []`, its RED-only variant; here
# bsf-red.toml).
#
#   ns bsf.tcl ERROR_RATE SEED DURATION_S
#
# 5 one-way Agent/TCP/Reno senders (ECN-capable, ecn_ 1; Agent/TCPSink, an ACK per segment;
# packetSize_ 1000, window_ 1000) on 10 Mbit/s, 10 ms wired links to the base station bs; bs
# sends over a 2 Mbit/s, 10 ms wireless link to the mobile host mh through a 20-packet RED
# queue (thresh_ 5, maxthresh_ 15, q_weight_ 0.002, linterm_ 10, not gentle, packet mode,
# setbit_ true: ECN marks); the ACKs return over a loss-free 2 Mbit/s, 10 ms link. Flow i
# starts at i * 0.1 s. Wireless losses: a two-state Markov chain stepped once per packet
# (ns-2's ErrorModel/MultiState, sttype pkt): every packet is lost in the bad state, none in
# the good one; with mean burst L = 3 packets, p(bad->good) = 1/L and p(good->bad) =
# e/(1-e)/L, so the stationary loss rate is e: tcplab's `gilbert_elliott` with `error_rate`
# and `mean_burst` (docs/scenarios.md). The error module sits after the link (`link-lossmodel`),
# so a lost packet has used its transmission time, as in tcplab.
# Prints one JSON object: per-flow payload bytes delivered in order (TCPSink bytes_), the
# aggregate goodput over the whole run, the senders' counters and the base station's queue
# monitor (arrivals and departures at the RED queue; its drops count the queue's and the
# error module's, which share the link's drop target).

if {$argc != 3} { puts stderr "usage: ns bsf.tcl ERROR_RATE SEED DURATION_S"; exit 2 }
foreach {e seed duration} $argv break
global defaultRNG
$defaultRNG seed $seed

set N 5
set L 3.0
set pkt 1000
set hdr 40

Queue/RED set thresh_ 5
Queue/RED set maxthresh_ 15
Queue/RED set q_weight_ 0.002
Queue/RED set linterm_ 10
Queue/RED set bytes_ false
Queue/RED set queue_in_bytes_ false
Queue/RED set wait_ true
Queue/RED set mean_pktsize_ 500
Queue/RED set gentle_ false
Queue/RED set setbit_ true

Agent/TCP set packetSize_ $pkt
Agent/TCP set window_ 1000
Agent/TCP set ecn_ 1

set ns [new Simulator]
$ns use-scheduler Heap
set bs [$ns node]
set mh [$ns node]
$ns simplex-link $bs $mh 2Mb 10ms RED
$ns simplex-link $mh $bs 2Mb 10ms DropTail
$ns queue-limit $bs $mh 20
$ns queue-limit $mh $bs 1000

# The two-state chain. ErrorModel/MultiState (tcl/lib/ns-errmodel.tcl) with sttype "pkt"
# draws the next state from the transition matrix on every packet (its `transition`, with
# the global `uniform`, i.e. defaultRNG), then lets the new state's model decide the packet.
set good [new ErrorModel/Uniform 0 pkt]
set bad [new ErrorModel/Uniform 1 pkt]
set pbg [expr {1.0 / $L}]
set pgb [expr {$e / (1.0 - $e) / $L}]
set trans [list [list [expr {1.0 - $pgb}] $pgb] [list $pbg [expr {1.0 - $pbg}]]]
set em [new ErrorModel/MultiState [list $good $bad] {0 0} $trans pkt pkt 2 $good]
$ns link-lossmodel $em $bs $mh

set redq [[$ns link $bs $mh] queue]
set qmon [$ns monitor-queue $bs $mh [open /dev/null w]]

for {set i 0} {$i < $N} {incr i} {
    set s($i) [$ns node]
    $ns duplex-link $s($i) $bs 10Mb 10ms DropTail
    $ns queue-limit $s($i) $bs 1000
    $ns queue-limit $bs $s($i) 1000
    set tcp($i) [new Agent/TCP/Reno]
    set sink($i) [new Agent/TCPSink]
    $ns attach-agent $s($i) $tcp($i)
    $ns attach-agent $mh $sink($i)
    $ns connect $tcp($i) $sink($i)
    $tcp($i) set fid_ $i
    set ftp($i) [new Application/FTP]
    $ftp($i) attach-agent $tcp($i)
    $ns at [expr {$i * 0.1}] "$ftp($i) start"
}

proc finish {} {
    global ns N sink tcp pkt hdr duration e seed qmon
    set fl {}
    set total 0
    for {set i 0} {$i < $N} {incr i} {
        # bytes_ counts wire bytes delivered in order, the 40-byte SYN included.
        set b [expr {([$sink($i) set bytes_] - $hdr) / ($pkt + $hdr) * $pkt}]
        set total [expr {$total + $b}]
        lappend fl "\{\"bytes_delivered\": $b, \"goodput_mbps\": [expr {$b * 8.0 / ($duration - $i * 0.1) / 1e6}], \"data_pkts\": [$tcp($i) set ndatapack_], \"rexmit_pkts\": [$tcp($i) set nrexmitpack_], \"timeouts\": [$tcp($i) set nrexmit_], \"cwnd_cuts\": [$tcp($i) set ncwndcuts_], \"ecn_responses\": [$tcp($i) set necnresponses_]\}"
    }
    puts "\{\"error_rate\": $e, \"seed\": $seed, \"duration_s\": $duration,\
 \"aggregate_goodput_mbps\": [expr {$total * 8.0 / $duration / 1e6}],\
 \"bs_queue_arrivals\": [$qmon set parrivals_], \"bs_queue_departures\": [$qmon set pdepartures_], \"bs_link_drops\": [$qmon set pdrops_],\
 \"flows\": \[[join $fl ", "]\]\}"
    exit 0
}
$ns at $duration finish
$ns run
