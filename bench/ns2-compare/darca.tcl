# ns-2.35 baseline of the DARCA paper's section 4.1 topology WITHOUT DARCA (Zeng and Yao,
# Figure 5; tcplab: scenarios/darca/remote-bottleneck.toml without its element; here
# darca-droptail.toml).
#
#   ns darca.tcl SEED DURATION_S
#
# Four one-way Agent/TCP/Reno connections (Agent/TCPSink, an ACK per segment; packetSize_
# 512, window_ 128 = the paper's 65536-byte receiver window) from s1..s4 through the access
# router ar, the controlled 10 Mbit/s, 20 ms link ar -> er and a 100 Mbit/s, 10 ms link to
# the receiver rx; access links 100 Mbit/s, 20 ms, except s4's 250 kbit/s (TCP_4 is
# bottlenecked upstream); every queue drop-tail, 100 packets. Connection i starts at
# (i - 1) * 0.1 s. No DARCA: this is the uncontrolled baseline.
# Prints one JSON object: per-connection payload bytes delivered in order and goodput over
# its active time, the aggregate, and the senders' and the link L's counters.

if {$argc != 2} { puts stderr "usage: ns darca.tcl SEED DURATION_S"; exit 2 }
foreach {seed duration} $argv break
global defaultRNG
$defaultRNG seed $seed

set pkt 512
set hdr 40
Agent/TCP set packetSize_ $pkt
Agent/TCP set window_ 128

set ns [new Simulator]
$ns use-scheduler Heap
set ar [$ns node]
set er [$ns node]
set rx [$ns node]
$ns duplex-link $ar $er 10Mb 20ms DropTail
$ns queue-limit $ar $er 100
$ns queue-limit $er $ar 100
$ns duplex-link $er $rx 100Mb 10ms DropTail
$ns queue-limit $er $rx 100
$ns queue-limit $rx $er 100
set qmon [$ns monitor-queue $ar $er [open /dev/null w]]

for {set i 1} {$i <= 4} {incr i} {
    set s($i) [$ns node]
    if {$i == 4} {
        $ns simplex-link $s($i) $ar 250Kb 20ms DropTail
        $ns simplex-link $ar $s($i) 100Mb 20ms DropTail
    } else {
        $ns duplex-link $s($i) $ar 100Mb 20ms DropTail
    }
    $ns queue-limit $s($i) $ar 100
    $ns queue-limit $ar $s($i) 100
    set tcp($i) [new Agent/TCP/Reno]
    set sink($i) [new Agent/TCPSink]
    $ns attach-agent $s($i) $tcp($i)
    $ns attach-agent $rx $sink($i)
    $ns connect $tcp($i) $sink($i)
    $tcp($i) set fid_ $i
    set ftp($i) [new Application/FTP]
    $ftp($i) attach-agent $tcp($i)
    $ns at [expr {($i - 1) * 0.1}] "$ftp($i) start"
}

proc finish {} {
    global ns sink tcp pkt hdr duration seed qmon
    set fl {}
    set total 0
    for {set i 1} {$i <= 4} {incr i} {
        set b [expr {([$sink($i) set bytes_] - $hdr) / ($pkt + $hdr) * $pkt}]
        set total [expr {$total + $b}]
        lappend fl "\{\"name\": \"tcp$i\", \"bytes_delivered\": $b, \"goodput_mbps\": [expr {$b * 8.0 / ($duration - ($i - 1) * 0.1) / 1e6}], \"data_pkts\": [$tcp($i) set ndatapack_], \"rexmit_pkts\": [$tcp($i) set nrexmitpack_], \"timeouts\": [$tcp($i) set nrexmit_], \"cwnd_cuts\": [$tcp($i) set ncwndcuts_]\}"
    }
    puts "\{\"seed\": $seed, \"duration_s\": $duration,\
 \"aggregate_goodput_mbps\": [expr {$total * 8.0 / $duration / 1e6}],\
 \"L_arrivals\": [$qmon set parrivals_], \"L_drops\": [$qmon set pdrops_],\
 \"flows\": \[[join $fl ", "]\]\}"
    exit 0
}
$ns at $duration finish
$ns run
