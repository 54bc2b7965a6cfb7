# ns-2.35: one Agent/TCP/Reno connection under evenly spaced drops, the loss pattern DARCA's
# drop counters impose and Mathis et al.'s model assumes (tcplab: reno-periodic.toml).
#
#   ns reno-periodic.tcl PERIOD DURATION_S
#
# s -> ar -> er -> rx as darca.tcl's TCP_1 (access 100 Mbit/s 20 ms, L 10 Mbit/s 20 ms,
# er -> rx 100 Mbit/s 10 ms, drop-tail 100 packets everywhere: RTT 100 ms plus
# serialisation); Agent/TCP/Reno, packetSize_ 512, window_ 128, Agent/TCPSink (an ACK per
# segment). ErrorModel/Periodic in packet units on L (after its queue, as `lossmodel`
# places it): the PERIOD-th packet L sends is lost, then every PERIOD-th after it,
# retransmissions included, as a DARCA counter counts them.
# Prints one JSON object: payload bytes delivered in order, goodput over the run, the
# sender's counters.

if {$argc != 2} { puts stderr "usage: ns reno-periodic.tcl PERIOD DURATION_S"; exit 2 }
foreach {period duration} $argv break

set pkt 512
set hdr 40
Agent/TCP set packetSize_ $pkt
Agent/TCP set window_ 128

set ns [new Simulator]
$ns use-scheduler Heap
set s [$ns node]
set ar [$ns node]
set er [$ns node]
set rx [$ns node]
$ns duplex-link $s $ar 100Mb 20ms DropTail
$ns duplex-link $ar $er 10Mb 20ms DropTail
$ns duplex-link $er $rx 100Mb 10ms DropTail
foreach {a b} [list $s $ar $ar $er $er $rx] {
    $ns queue-limit $a $b 100
    $ns queue-limit $b $a 100
}
set em [new ErrorModel/Periodic]
$em unit pkt
$em set period_ $period
$em set offset_ $period
set sinkhole [new Agent/Null]
$em drop-target $sinkhole
$ns lossmodel $em $ar $er

set tcp [new Agent/TCP/Reno]
set sink [new Agent/TCPSink]
$ns attach-agent $s $tcp
$ns attach-agent $rx $sink
$ns connect $tcp $sink
set ftp [new Application/FTP]
$ftp attach-agent $tcp
$ns at 0.0 "$ftp start"

proc finish {} {
    global sink tcp pkt hdr duration period
    set b [expr {([$sink set bytes_] - $hdr) / ($pkt + $hdr) * $pkt}]
    puts "\{\"period\": $period, \"duration_s\": $duration, \"bytes_delivered\": $b,\
 \"goodput_mbps\": [expr {$b * 8.0 / $duration / 1e6}], \"data_pkts\": [$tcp set ndatapack_],\
 \"rexmit_pkts\": [$tcp set nrexmitpack_], \"timeouts\": [$tcp set nrexmit_],\
 \"cwnd_cuts\": [$tcp set ncwndcuts_]\}"
    exit 0
}
$ns at $duration finish
$ns run
