# ns-2.35 baselines of the thesis' chapter-5 model (rate-based-congestion-control thesis,
# sections 5.2.2-5.2.4; tcplab: ch5-concurrent-upload.toml and ch5-slow-uplink.toml here).
#
#   ns ch5.tcl MODE CC START_S UP_KBPS DOWN_KBPS SEED [TRACEFILE]
#
# MODE concurrent: a 1 MB download (server -> client) starts at START_S while a continuous
#   CUBIC upload (client -> server, started at 0 s) keeps the 700-packet uplink buffer full.
# MODE slow: the same 1 MB download alone (START_S is its start), no upload.
# CC: the download's TCP-Linux congestion control: cubic | reno | westwood | vegas.
# Prints one JSON object on stdout. With TRACEFILE, the download's cwnd_ and ssthresh_ and
# its timeouts (nrexmit_) are traced into it (ns-2's TracedInt/TracedDouble trace).
#
# Model: two nodes, simplex links server->client (downlink, DOWN_KBPS, 50 ms, drop-tail 2000
# packets) and client->server (uplink, UP_KBPS, 50 ms, drop-tail 700 packets): RTT 100 ms,
# the thesis' 2,000-packet and "1 MB (~700 packets)" buffers. TCP: Agent/TCP/Linux with
# `select_ca` (ns-2's TCP-Linux, Linux 2.6.x congestion-control modules) and
# Agent/TCPSink/Sack1 (an ACK per segment, up to 3 SACK blocks); every other TCP variable
# at its ns-2.35 default except packetSize_ 1460 (1500-byte packets with the 40-byte
# tcpip_base_hdr_size_) and window_ 10000 (no receiver-window limit).
# The download is `$ftp send 1000000`: ceil(1e6 / 1460) = 685 segments (1,000,100 bytes);
# the sender's first packet (seqno 0) is the 40-byte SYN (syn_ true), sent with the first
# data segment in the initial window of 2.

if {$argc < 6} { puts stderr "usage: ns ch5.tcl concurrent|slow CC START_S UP_KBPS DOWN_KBPS SEED \[TRACEFILE\]"; exit 2 }
foreach {mode cc start up down seed} $argv break
set tracefile [expr {$argc > 6 ? [lindex $argv 6] : ""}]
global defaultRNG
$defaultRNG seed $seed

set duration 300.0          ;# tcplab's scenario duration
set segs 685                ;# ceil(1000000 / 1460)
set pktsize 1460
set hdr 40

Agent/TCP set packetSize_ $pktsize
Agent/TCP set window_ 10000

set ns [new Simulator]
$ns use-scheduler Heap
set S [$ns node]
set C [$ns node]
$ns simplex-link $S $C ${down}Kb 50ms DropTail
$ns simplex-link $C $S ${up}Kb 50ms DropTail
$ns queue-limit $S $C 2000
$ns queue-limit $C $S 700
# Packets dropped at the uplink buffer (the download's ACKs and the upload's data).
set upqm [$ns monitor-queue $C $S [open /dev/null w]]

set dl [new Agent/TCP/Linux]
set dlsink [new Agent/TCPSink/Sack1]
$ns attach-agent $S $dl
$ns attach-agent $C $dlsink
$ns connect $dl $dlsink
$dl set fid_ 1
$ns at 0 "$dl select_ca $cc"
set dlftp [new Application/FTP]
$dlftp attach-agent $dl
$ns at $start "$dlftp send [expr {$segs * $pktsize}]"

if {$mode eq "concurrent"} {
    set ul [new Agent/TCP/Linux]
    set ulsink [new Agent/TCPSink/Sack1]
    $ns attach-agent $C $ul
    $ns attach-agent $S $ulsink
    $ns connect $ul $ulsink
    $ul set fid_ 2
    $ns at 0 "$ul select_ca cubic"
    set ulftp [new Application/FTP]
    $ulftp attach-agent $ul
    $ns at 0 "$ulftp start"
} elseif {$mode ne "slow"} {
    puts stderr "unknown mode $mode"; exit 2
}

if {$tracefile ne ""} {
    set tf [open $tracefile w]
    $dl trace cwnd_
    $dl trace ssthresh_
    $dl trace nrexmit_
    $dl trace rtt_
    $dl attach $tf
}

# The download is complete when its sink has delivered, in order, the SYN and all 685
# segments: TCPSink's bytes_ counts the wire bytes (size incl. the 40-byte header) it hands
# up in order. Polled every 1 ms from the start (completion known to within 1 ms).
set target [expr {$hdr + $segs * ($pktsize + $hdr)}]
set ::done -1
proc poll {} {
    global ns dlsink target
    if {[$dlsink set bytes_] >= $target} { set ::done [$ns now]; finish; return }
    $ns at [expr {[$ns now] + 0.001}] poll
}
$ns at $start poll

proc upload_stats {} {
    global mode
    if {$mode ne "concurrent"} { return null }
    global ul
    return "\{\"data_pkts\": [$ul set ndatapack_], \"rexmit_pkts\": [$ul set nrexmitpack_], \"timeouts\": [$ul set nrexmit_], \"cwnd_cuts\": [$ul set ncwndcuts_]\}"
}

proc finish {} {
    global ns dl dlsink start duration pktsize hdr segs mode cc up down seed tracefile upqm
    set now [$ns now]
    set delivered_pkts [expr {([$dlsink set bytes_] - $hdr) / ($pktsize + $hdr)}]
    if {$delivered_pkts < 0} { set delivered_pkts 0 }
    set bytes [expr {$delivered_pkts * $pktsize}]
    set complete [expr {$::done >= 0}]
    set t [expr {$complete ? $::done - $start : $duration - $start}]
    set gp [expr {$bytes * 8.0 / $t / 1e6}]
    if {$tracefile ne ""} { flush $::tf; close $::tf }
    puts "\{\"mode\": \"$mode\", \"cc\": \"$cc\", \"start_s\": $start, \"up_kbps\": $up, \"down_kbps\": $down, \"seed\": $seed,\
 \"complete\": [expr {$complete ? "true" : "false"}], \"completion_s\": [expr {$complete ? $::done : "null"}],\
 \"bytes_delivered\": $bytes, \"goodput_mbps\": $gp,\
 \"data_pkts\": [$dl set ndatapack_], \"rexmit_pkts\": [$dl set nrexmitpack_], \"timeouts\": [$dl set nrexmit_],\
 \"cwnd_cuts\": [$dl set ncwndcuts_], \"uplink_drops\": [$upqm set pdrops_], \"upload\": [upload_stats]\}"
    exit 0
}
$ns at $duration finish
$ns run
