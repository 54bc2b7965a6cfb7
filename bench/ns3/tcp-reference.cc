// tcp-reference.cc: the ns-3 side of tcplab's cross-validation. One program that builds and runs
// any of the three reference TCP scenarios (p2p-1, dumbbell-10, dumbbell-100), or of the three
// added in issue 16 (lossy, asym, mixed-rtt), in ns-3 3.44 and prints one JSON line of results.
// Compiled against the ns3==3.44.post0 PyPI wheel by build.sh.
//
//   tcp-reference --scenario=p2p-1 | dumbbell-10 | dumbbell-100
//                 [--simTime=<s>] [--flows=<n>] [--recovery=classic|prr]
//   tcp-reference --scenario=lossy | asym | mixed-rtt  [same options, and:]
//                 [--seed=<RngRun>] [--starts=<s>,<s>,...] [--traceFile=<path>] [--pcap=<prefix>]
//
// Modelling (the same in every scenario; tcplab's bench/ns3-compare/*.toml mirror it):
//  * TCP: TcpNewReno with SACK, timestamps and window scaling; segment size (MSS) 1448 B, so a
//    full segment is a 1500 B IP packet (1448 + 32 B TCP header with the timestamp option + 20 B
//    IPv4) and 1502 B on the wire (ns-3's point-to-point device adds a 2 B PPP header).
//    Delayed ACKs every 2nd segment (DelAckCount 2) or after 200 ms, initial window 10 segments,
//    minimum RTO 1 s, 1 ms clock granularity: ns-3's defaults, set explicitly below.
//    Loss recovery TcpClassicRecovery; --recovery=prr selects TcpPrrRecovery (ns-3's default).
//    Send and receive buffers 4 MiB, so no flow is ever limited by a buffer.
//  * Traffic: per flow one BulkSendApplication (unlimited, 1448 B writes) -> PacketSink.
//  * Queues: plain DropTailQueue<Packet> in every PointToPointNetDevice, sized in packets. Device
//    flow control is disabled and no traffic-control queue disc stays installed, so IP hands
//    packets straight to the device FIFO. Access-link queues hold 10000 packets and never drop.
//
// Topologies:
//  p2p-1        sender --(10 Mb/s, 20 ms, 100-pkt queue)-- receiver; 1 flow; 60 s.
//  dumbbell-10  n senders --(1 Gb/s, 1 ms)-- R1 ==(100 Mb/s, 20 ms, 1000 pkts)== R2
//               --(1 Gb/s, 1 ms)-- n receivers; n = 10; 60 s.
//  dumbbell-100 same with a 1 Gb/s, 5000-packet bottleneck and n = 100; 20 s.
// Dumbbell flow i starts at 0.1 * i / n s. Goodput = sink bytes * 8 / simulated seconds.
//
// Added scenarios (issue 16; own code paths below, so the three above keep their packet traces):
//  lossy        sender --(20 Mb/s, 20 ms, 100 pkts)-- receiver; 2 flows (ports 5001, 5002);
//               RateErrorModel (per packet, rate 0.01) on the receiver's device; 60 s.
//  asym         server --(10 Mb/s down, 100 pkts / 1 Mb/s up, 30 pkts; 20 ms)-- client;
//               flow 0 a download (server -> client), flow 1 an upload (client -> server); 60 s.
//  mixed-rtt    the dumbbell with a 50 Mb/s, 5 ms, 250-packet bottleneck, 8 flows, receiver
//               access 1 ms and sender i's access delay 4, 14, 24, 34, 49, 64, 79, 94 ms
//               (base RTTs 20 .. 200 ms); 60 s.
// Flow i starts at 0.1 * i / n s unless --starts gives the times. --seed sets ns-3's RngRun (only
// lossy draws random numbers). Their JSON line adds seed, error_drops (RateErrorModel drops) and
// per flow (sender-socket trace sources): timeouts (entries into CA_LOSS), recoveries (entries
// into CA_RECOVERY), retx_segments, tx_segments and start_s. --traceFile writes every change of
// cwnd, ssthresh, RTO, RTT, BytesInFlight and congestion state per flow, and of the bottleneck
// device queues' lengths and drops; --pcap a pcap of every device.
//
// Output keys: scenario, sim_seconds, flows, recovery, goodput_mbps, per_flow_goodput_mbps,
// rx_bytes, rx_data_pkts (segments with payload arriving at receiver hosts, retransmissions
// included), rx_all_pkts (every packet arriving at receiver hosts), link_tx_pkts (transmissions
// on all devices, data and ACKs), bottleneck_drops (bottleneck device queues, both directions),
// other_drops (any other device queue or traffic-control layer; expected 0), events
// (Simulator::GetEventCount), wall_run_s (wall time of Simulator::Run), wall_total_s (whole
// process). Everything except the two wall times is deterministic.
//
// The order in which nodes, links, addresses and applications are created is part of the
// model: it fixes node ids, interface indices and the order of same-time events, and with it
// the exact packet trace. Keep it when editing.

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/ppp-header.h"
#include "ns3/traffic-control-module.h"

#include <chrono>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

using Clock = std::chrono::steady_clock;

constexpr uint32_t kSegmentBytes = 1448;
constexpr uint32_t kSocketBuffer = 4 * 1024 * 1024;
constexpr uint32_t kAccessQueuePackets = 10000;
constexpr uint16_t kSinkPort = 5001;

// ---------------------------------------------------------------------------------------------
// Scenario table
// ---------------------------------------------------------------------------------------------

enum class Shape
{
    PointToPoint, // the sender's device queue is the bottleneck; no routers
    Dumbbell,     // senders - R1 = bottleneck = R2 - receivers
    // Issue 16's added scenarios (new code paths; the three above are untouched):
    Lossy,    // sender -- receiver, random per-packet loss on the data direction, n flows
    Asym,     // sender -- receiver, 10 Mb/s down / 1 Mb/s up, a download and an upload
    MixedRtt, // dumbbell whose sender access links have different delays
};

struct Scenario
{
    const char* name;
    Shape shape;
    uint32_t flows;
    const char* bottleneckRate;
    const char* bottleneckDelay;
    uint32_t bottleneckQueuePackets;
    double simSeconds;
    double startSpreadSeconds; // flow i starts at spread * i / flows
};

const Scenario kScenarios[] = {
    {"p2p-1", Shape::PointToPoint, 1, "10Mbps", "20ms", 100, 60.0, 0.0},
    {"dumbbell-10", Shape::Dumbbell, 10, "100Mbps", "20ms", 1000, 60.0, 0.1},
    {"dumbbell-100", Shape::Dumbbell, 100, "1Gbps", "20ms", 5000, 20.0, 0.1},
    {"lossy", Shape::Lossy, 2, "20Mbps", "20ms", 100, 60.0, 0.1},
    {"asym", Shape::Asym, 2, "10Mbps", "20ms", 100, 60.0, 0.1},
    {"mixed-rtt", Shape::MixedRtt, 8, "50Mbps", "5ms", 250, 60.0, 0.1},
};

// lossy: RateErrorModel (ERROR_UNIT_PACKET, uniform draw per packet) on the receiver's device.
constexpr double kLossyErrorRate = 0.01;
// asym: the uplink (client -> server) device.
constexpr const char* kAsymUpRate = "1Mbps";
constexpr uint32_t kAsymUpQueuePackets = 30;
// mixed-rtt: one-way delay of sender i's access link (both directions); receiver access links
// 1 ms, bottleneck 5 ms, so flow i's base RTT is 2 * (5 + 1 + d_i) ms: 20, 40, 60, 80, 110,
// 140, 170, 200 ms.
const uint32_t kMixedRttAccessMs[] = {4, 14, 24, 34, 49, 64, 79, 94};

// ---------------------------------------------------------------------------------------------
// Counters, fed by trace sources
// ---------------------------------------------------------------------------------------------

struct Tally
{
    uint64_t rxDataPkts = 0;
    uint64_t rxAllPkts = 0;
    uint64_t linkTxPkts = 0;
    uint64_t bottleneckDrops = 0;
    uint64_t otherDrops = 0;

    // MacRx of a receiver host's device: the frame still carries its PPP header.
    void ReceiverFrame(Ptr<const Packet> frame)
    {
        ++rxAllPkts;
        Ptr<Packet> p = frame->Copy();
        PppHeader ppp;
        Ipv4Header ip;
        TcpHeader tcp;
        p->RemoveHeader(ppp);
        p->RemoveHeader(ip);
        p->RemoveHeader(tcp);
        if (p->GetSize() > 0)
        {
            ++rxDataPkts;
        }
    }

    void Transmission(Ptr<const Packet>)
    {
        ++linkTxPkts;
    }

    void BottleneckDrop(Ptr<const Packet>)
    {
        ++bottleneckDrops;
    }

    void OtherDrop(Ptr<const Packet>)
    {
        ++otherDrops;
    }
};

Tally g_tally;

// ---------------------------------------------------------------------------------------------
// Model setup
// ---------------------------------------------------------------------------------------------

void
SetTcpDefaults(const std::string& recovery)
{
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpNewReno::GetTypeId()));
    TypeId recoveryType = recovery == "prr" ? TcpPrrRecovery::GetTypeId()
                                            : TcpClassicRecovery::GetTypeId();
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType", TypeIdValue(recoveryType));

    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(kSegmentBytes));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(2));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(MilliSeconds(200)));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(kSocketBuffer));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(kSocketBuffer));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(1)));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(MilliSeconds(1)));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(true));
}

// A full-duplex point-to-point link a <-> b whose two devices each have a DropTail FIFO of
// `queuePackets` packets and no flow control (so no queue disc gets installed above them).
NetDeviceContainer
Connect(Ptr<Node> a, Ptr<Node> b, const std::string& rate, const std::string& delay,
        uint32_t queuePackets)
{
    PointToPointHelper link;
    link.SetDeviceAttribute("DataRate", StringValue(rate));
    link.SetDeviceAttribute("Mtu", UintegerValue(1500));
    link.SetChannelAttribute("Delay", StringValue(delay));
    link.SetQueue("ns3::DropTailQueue<Packet>",
                  "MaxSize",
                  QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, queuePackets)));
    link.DisableFlowControl();
    return link.Install(a, b);
}

bool
Contains(const NetDeviceContainer& c, Ptr<NetDevice> d)
{
    for (auto it = c.Begin(); it != c.End(); ++it)
    {
        if (*it == d)
        {
            return true;
        }
    }
    return false;
}

// Makes the device FIFOs the only queues, hooks the counters to every device and computes
// static routes. `devices` holds every device, `bottleneck` the ones whose drops count as
// bottleneck drops.
void
FinishNetwork(const NetDeviceContainer& devices, const NetDeviceContainer& bottleneck)
{
    TrafficControlHelper tc;
    for (auto it = devices.Begin(); it != devices.End(); ++it)
    {
        Ptr<PointToPointNetDevice> dev = DynamicCast<PointToPointNetDevice>(*it);
        Ptr<TrafficControlLayer> layer = dev->GetNode()->GetObject<TrafficControlLayer>();
        // Without flow control the address helper installs no queue disc; should a future
        // ns-3 do so anyway, take it off again.
        if (layer && layer->GetRootQueueDiscOnDevice(dev))
        {
            tc.Uninstall(dev);
        }
        NS_ABORT_MSG_IF(layer && layer->GetRootQueueDiscOnDevice(dev),
                        "a queue disc is still installed on a device");

        dev->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&Tally::Transmission, &g_tally));
        auto onDrop = Contains(bottleneck, dev) ? &Tally::BottleneckDrop : &Tally::OtherDrop;
        dev->GetQueue()->TraceConnectWithoutContext("Drop", MakeCallback(onDrop, &g_tally));
    }
    for (auto it = NodeList::Begin(); it != NodeList::End(); ++it)
    {
        if (Ptr<TrafficControlLayer> layer = (*it)->GetObject<TrafficControlLayer>())
        {
            layer->TraceConnectWithoutContext("Drop", MakeCallback(&Tally::OtherDrop, &g_tally));
        }
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
}

// Flow i goes from senders[i] to the sink at sinkAddrs[i] on receivers[i]; sinkDevs[i] is the
// receiver's device, whose arriving frames are counted.
struct Endpoints
{
    std::vector<Ptr<Node>> senders;
    std::vector<Ptr<Node>> receivers;
    std::vector<Ipv4Address> sinkAddrs;
    std::vector<Ptr<NetDevice>> sinkDevs;
};

Endpoints
BuildPointToPoint(const Scenario& s)
{
    NodeContainer hosts;
    hosts.Create(2);
    InternetStackHelper().Install(hosts);

    NetDeviceContainer link = Connect(hosts.Get(0), hosts.Get(1), s.bottleneckRate,
                                      s.bottleneckDelay, s.bottleneckQueuePackets);
    Ipv4AddressHelper ip("10.1.0.0", "255.255.255.0");
    Ipv4InterfaceContainer ifaces = ip.Assign(link);
    // Both devices of the single link are bottleneck devices.
    FinishNetwork(link, link);
    return {{hosts.Get(0)}, {hosts.Get(1)}, {ifaces.GetAddress(1)}, {link.Get(1)}};
}

Endpoints
BuildDumbbell(const Scenario& s, uint32_t flows)
{
    // Creation order (senders, receivers, routers) fixes the node ids.
    NodeContainer senders, receivers, routers;
    senders.Create(flows);
    receivers.Create(flows);
    routers.Create(2);
    InternetStackHelper stack;
    stack.Install(senders);
    stack.Install(receivers);
    stack.Install(routers);

    NetDeviceContainer devices;
    Ipv4AddressHelper ip;

    NetDeviceContainer bottleneck = Connect(routers.Get(0), routers.Get(1), s.bottleneckRate,
                                            s.bottleneckDelay, s.bottleneckQueuePackets);
    devices.Add(bottleneck);
    ip.SetBase("10.255.0.0", "255.255.255.0");
    ip.Assign(bottleneck);

    Endpoints ep;
    for (uint32_t i = 0; i < flows; ++i)
    {
        NetDeviceContainer left =
            Connect(senders.Get(i), routers.Get(0), "1Gbps", "1ms", kAccessQueuePackets);
        NetDeviceContainer right =
            Connect(routers.Get(1), receivers.Get(i), "1Gbps", "1ms", kAccessQueuePackets);
        devices.Add(left);
        devices.Add(right);
        // sender i in 10.1.i.0/24, receiver i in 10.2.i.0/24 for the first 256 pairs (the
        // reference scenarios' addresses); further pairs in 10.(16 + i/256).(i%256).0/24 and
        // 10.(128 + i/256).(i%256).0/24, up to 28,672 pairs (bench/scale runs 1000).
        NS_ABORT_MSG_IF(i >= 112 * 256, "at most 28672 dumbbell pairs");
        std::string leftNet = i < 256 ? "10.1." + std::to_string(i) + ".0"
                                      : "10." + std::to_string(16 + i / 256) + "." +
                                            std::to_string(i % 256) + ".0";
        std::string rightNet = i < 256 ? "10.2." + std::to_string(i) + ".0"
                                       : "10." + std::to_string(128 + i / 256) + "." +
                                             std::to_string(i % 256) + ".0";
        ip.SetBase(leftNet.c_str(), "255.255.255.0");
        ip.Assign(left);
        ip.SetBase(rightNet.c_str(), "255.255.255.0");
        Ipv4InterfaceContainer rightIfaces = ip.Assign(right);

        ep.senders.push_back(senders.Get(i));
        ep.receivers.push_back(receivers.Get(i));
        ep.sinkAddrs.push_back(rightIfaces.GetAddress(1));
        ep.sinkDevs.push_back(right.Get(1));
    }
    FinishNetwork(devices, bottleneck);
    return ep;
}

// Per flow (in flow order): the sink, then its bulk sender, then the receive counter.
std::vector<Ptr<PacketSink>>
InstallFlows(const Endpoints& ep, double simSeconds, double startSpread)
{
    const size_t n = ep.senders.size();
    std::vector<Ptr<PacketSink>> sinks;
    for (size_t i = 0; i < n; ++i)
    {
        PacketSinkHelper sink("ns3::TcpSocketFactory",
                              InetSocketAddress(Ipv4Address::GetAny(), kSinkPort));
        ApplicationContainer sinkApp = sink.Install(ep.receivers[i]);
        sinkApp.Start(Seconds(0));
        sinkApp.Stop(Seconds(simSeconds));
        sinks.push_back(DynamicCast<PacketSink>(sinkApp.Get(0)));

        BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(ep.sinkAddrs[i], kSinkPort));
        bulk.SetAttribute("MaxBytes", UintegerValue(0));
        bulk.SetAttribute("SendSize", UintegerValue(kSegmentBytes));
        ApplicationContainer bulkApp = bulk.Install(ep.senders[i]);
        bulkApp.Start(Seconds(startSpread * double(i) / double(n)));
        bulkApp.Stop(Seconds(simSeconds));

        ep.sinkDevs[i]->TraceConnectWithoutContext(
            "MacRx",
            MakeCallback(&Tally::ReceiverFrame, &g_tally));
    }
    return sinks;
}


// ---------------------------------------------------------------------------------------------
// Issue 16's scenarios (lossy, asym, mixed-rtt): own code paths, so the three reference
// scenarios above keep their exact packet traces.
// ---------------------------------------------------------------------------------------------

// Per-flow sender-side counters from the sender socket's trace sources, and an optional trace
// file (--traceFile) with every cwnd / ssthresh / RTO / congestion-state change.
struct FlowProbe
{
    uint32_t flow = 0;
    uint64_t timeouts = 0;    // entries into CA_LOSS (retransmission timeouts)
    uint64_t recoveries = 0;  // entries into CA_RECOVERY (fast retransmit / recovery)
    uint64_t retxSegments = 0; // data segments sent below the highest sequence sent so far
    uint64_t txSegments = 0;  // data segments sent
    SequenceNumber32 highTx{0};
    bool started = false;
};

std::vector<FlowProbe> g_probes;
FILE* g_trace = nullptr;

void
ProbeCongState(uint32_t i, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    if (now == TcpSocketState::CA_LOSS)
    {
        ++g_probes[i].timeouts;
    }
    if (now == TcpSocketState::CA_RECOVERY)
    {
        ++g_probes[i].recoveries;
    }
    if (g_trace)
    {
        std::fprintf(g_trace, "%.6f %u state %d\n", Simulator::Now().GetSeconds(), i, int(now));
    }
}

void
ProbeTx(uint32_t i, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (p->GetSize() == 0)
    {
        return;
    }
    FlowProbe& f = g_probes[i];
    ++f.txSegments;
    SequenceNumber32 end = h.GetSequenceNumber() + p->GetSize();
    if (f.started && end <= f.highTx)
    {
        ++f.retxSegments;
    }
    if (!f.started || end > f.highTx)
    {
        f.highTx = end;
        f.started = true;
    }
}

void
ProbeCwnd(uint32_t i, uint32_t, uint32_t now)
{
    if (g_trace)
    {
        std::fprintf(g_trace, "%.6f %u cwnd %u\n", Simulator::Now().GetSeconds(), i, now);
    }
}

void
ProbeSsthresh(uint32_t i, uint32_t, uint32_t now)
{
    if (g_trace)
    {
        std::fprintf(g_trace, "%.6f %u ssthresh %u\n", Simulator::Now().GetSeconds(), i, now);
    }
}

void
ProbeRto(uint32_t i, Time, Time now)
{
    if (g_trace)
    {
        std::fprintf(g_trace, "%.6f %u rto %.6f\n", Simulator::Now().GetSeconds(), i, now.GetSeconds());
    }
}

void
ProbeRtt(uint32_t i, Time, Time now)
{
    if (g_trace)
    {
        std::fprintf(g_trace, "%.6f %u rtt %.6f\n", Simulator::Now().GetSeconds(), i, now.GetSeconds());
    }
}

void
ProbeInFlight(uint32_t i, uint32_t, uint32_t now)
{
    if (g_trace)
    {
        std::fprintf(g_trace, "%.6f %u inflight %u\n", Simulator::Now().GetSeconds(), i, now);
    }
}

void
HookSender(Ptr<BulkSendApplication> app, uint32_t i)
{
    Ptr<Socket> s = app->GetSocket();
    NS_ABORT_MSG_IF(!s, "bulk sender " << i << " has no socket yet");
    s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&ProbeCongState, i));
    s->TraceConnectWithoutContext("Tx", MakeBoundCallback(&ProbeTx, i));
    s->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&ProbeCwnd, i));
    s->TraceConnectWithoutContext("SlowStartThreshold", MakeBoundCallback(&ProbeSsthresh, i));
    s->TraceConnectWithoutContext("RTO", MakeBoundCallback(&ProbeRto, i));
    s->TraceConnectWithoutContext("RTT", MakeBoundCallback(&ProbeRtt, i));
    s->TraceConnectWithoutContext("BytesInFlight", MakeBoundCallback(&ProbeInFlight, i));
}

// Flow i: bulk sender on senders[i] -> sink on receivers[i] at sinkAddrs[i]:ports[i], started at
// starts[i]. Each distinct receiver device in sinkDevs gets the receive counter once.
std::vector<Ptr<PacketSink>>
InstallFlowsWithPorts(const Endpoints& ep, const std::vector<uint16_t>& ports,
                      const std::vector<double>& starts, double simSeconds)
{
    const size_t n = ep.senders.size();
    g_probes.assign(n, FlowProbe{});
    std::vector<Ptr<PacketSink>> sinks;
    std::vector<Ptr<NetDevice>> counted;
    for (size_t i = 0; i < n; ++i)
    {
        g_probes[i].flow = i;
        PacketSinkHelper sink("ns3::TcpSocketFactory",
                              InetSocketAddress(Ipv4Address::GetAny(), ports[i]));
        ApplicationContainer sinkApp = sink.Install(ep.receivers[i]);
        sinkApp.Start(Seconds(0));
        sinkApp.Stop(Seconds(simSeconds));
        sinks.push_back(DynamicCast<PacketSink>(sinkApp.Get(0)));

        BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(ep.sinkAddrs[i], ports[i]));
        bulk.SetAttribute("MaxBytes", UintegerValue(0));
        bulk.SetAttribute("SendSize", UintegerValue(kSegmentBytes));
        ApplicationContainer bulkApp = bulk.Install(ep.senders[i]);
        bulkApp.Start(Seconds(starts[i]));
        bulkApp.Stop(Seconds(simSeconds));
        // The socket exists once StartApplication ran; hook its traces 1 ns later, long
        // before the SYN-ACK can arrive.
        Simulator::Schedule(Seconds(starts[i]) + NanoSeconds(1), &HookSender,
                            DynamicCast<BulkSendApplication>(bulkApp.Get(0)), uint32_t(i));

        bool seen = false;
        for (const auto& d : counted)
        {
            seen |= d == ep.sinkDevs[i];
        }
        if (!seen)
        {
            counted.push_back(ep.sinkDevs[i]);
            ep.sinkDevs[i]->TraceConnectWithoutContext(
                "MacRx",
                MakeCallback(&Tally::ReceiverFrame, &g_tally));
        }
    }
    return sinks;
}

// --traceFile only: a device queue's length changes and its drops ("<t> -1 q<dev> <pkts>",
// "<t> -1 drop<dev> <payload bytes>").
void
ProbeQueueLen(uint32_t dev, uint32_t, uint32_t now)
{
    std::fprintf(g_trace, "%.6f -1 q%u %u\n", Simulator::Now().GetSeconds(), dev, now);
}

void
ProbeQueueDrop(uint32_t dev, Ptr<const Packet> frame)
{
    Ptr<Packet> p = frame->Copy();
    PppHeader ppp;
    Ipv4Header ip;
    TcpHeader tcp;
    p->RemoveHeader(ppp);
    p->RemoveHeader(ip);
    p->RemoveHeader(tcp);
    std::fprintf(g_trace, "%.6f -1 drop%u %u\n", Simulator::Now().GetSeconds(), dev, p->GetSize());
}

void
TraceQueues(const NetDeviceContainer& devs)
{
    if (!g_trace)
    {
        return;
    }
    for (uint32_t i = 0; i < devs.GetN(); ++i)
    {
        Ptr<Queue<Packet>> q = DynamicCast<PointToPointNetDevice>(devs.Get(i))->GetQueue();
        q->TraceConnectWithoutContext("PacketsInQueue", MakeBoundCallback(&ProbeQueueLen, i));
        q->TraceConnectWithoutContext("Drop", MakeBoundCallback(&ProbeQueueDrop, i));
    }
}

uint64_t g_errorDrops = 0;

void
ErrorDrop(Ptr<const Packet>)
{
    ++g_errorDrops;
}

// lossy: hosts 0 (sender) and 1 (receiver), one link; n flows 0 -> 1 on ports 5001.. with a
// RateErrorModel dropping each packet that reaches host 1's device with kLossyErrorRate.
Endpoints
BuildLossy(const Scenario& s, uint32_t flows)
{
    NodeContainer hosts;
    hosts.Create(2);
    InternetStackHelper().Install(hosts);
    NetDeviceContainer link = Connect(hosts.Get(0), hosts.Get(1), s.bottleneckRate,
                                      s.bottleneckDelay, s.bottleneckQueuePackets);
    Ipv4AddressHelper ip("10.1.0.0", "255.255.255.0");
    Ipv4InterfaceContainer ifaces = ip.Assign(link);

    Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
    em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
    em->SetRate(kLossyErrorRate);
    link.Get(1)->SetAttribute("ReceiveErrorModel", PointerValue(em));
    link.Get(1)->TraceConnectWithoutContext("PhyRxDrop", MakeCallback(&ErrorDrop));

    FinishNetwork(link, link);
    TraceQueues(link);
    Endpoints ep;
    for (uint32_t i = 0; i < flows; ++i)
    {
        ep.senders.push_back(hosts.Get(0));
        ep.receivers.push_back(hosts.Get(1));
        ep.sinkAddrs.push_back(ifaces.GetAddress(1));
        ep.sinkDevs.push_back(link.Get(1));
    }
    return ep;
}

// asym: host 0 = server, host 1 = client. Device 0 (server -> client) at the scenario's rate
// and queue, device 1 (client -> server) at kAsymUpRate with kAsymUpQueuePackets. Flow 0 is
// the download (server -> client, port 5001), flow 1 the upload (client -> server, port 5002).
Endpoints
BuildAsym(const Scenario& s)
{
    NodeContainer hosts;
    hosts.Create(2);
    InternetStackHelper().Install(hosts);
    NetDeviceContainer link = Connect(hosts.Get(0), hosts.Get(1), s.bottleneckRate,
                                      s.bottleneckDelay, s.bottleneckQueuePackets);
    Ptr<PointToPointNetDevice> up = DynamicCast<PointToPointNetDevice>(link.Get(1));
    up->SetDataRate(DataRate(kAsymUpRate));
    up->GetQueue()->SetAttribute(
        "MaxSize",
        QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, kAsymUpQueuePackets)));
    Ipv4AddressHelper ip("10.1.0.0", "255.255.255.0");
    Ipv4InterfaceContainer ifaces = ip.Assign(link);
    FinishNetwork(link, link);
    TraceQueues(link);
    return {{hosts.Get(0), hosts.Get(1)},
            {hosts.Get(1), hosts.Get(0)},
            {ifaces.GetAddress(1), ifaces.GetAddress(0)},
            {link.Get(1), link.Get(0)}};
}

// mixed-rtt: BuildDumbbell's topology and addresses, with sender i's access link delayed by
// kMixedRttAccessMs[i].
Endpoints
BuildMixedRtt(const Scenario& s, uint32_t flows)
{
    NS_ABORT_MSG_IF(flows > sizeof(kMixedRttAccessMs) / sizeof(kMixedRttAccessMs[0]),
                    "mixed-rtt has at most 8 flows");
    NodeContainer senders, receivers, routers;
    senders.Create(flows);
    receivers.Create(flows);
    routers.Create(2);
    InternetStackHelper stack;
    stack.Install(senders);
    stack.Install(receivers);
    stack.Install(routers);

    NetDeviceContainer devices;
    Ipv4AddressHelper ip;
    NetDeviceContainer bottleneck = Connect(routers.Get(0), routers.Get(1), s.bottleneckRate,
                                            s.bottleneckDelay, s.bottleneckQueuePackets);
    devices.Add(bottleneck);
    ip.SetBase("10.255.0.0", "255.255.255.0");
    ip.Assign(bottleneck);

    Endpoints ep;
    for (uint32_t i = 0; i < flows; ++i)
    {
        std::string delay = std::to_string(kMixedRttAccessMs[i]) + "ms";
        NetDeviceContainer left =
            Connect(senders.Get(i), routers.Get(0), "1Gbps", delay, kAccessQueuePackets);
        NetDeviceContainer right =
            Connect(routers.Get(1), receivers.Get(i), "1Gbps", "1ms", kAccessQueuePackets);
        devices.Add(left);
        devices.Add(right);
        ip.SetBase(("10.1." + std::to_string(i) + ".0").c_str(), "255.255.255.0");
        ip.Assign(left);
        ip.SetBase(("10.2." + std::to_string(i) + ".0").c_str(), "255.255.255.0");
        Ipv4InterfaceContainer rightIfaces = ip.Assign(right);
        ep.senders.push_back(senders.Get(i));
        ep.receivers.push_back(receivers.Get(i));
        ep.sinkAddrs.push_back(rightIfaces.GetAddress(1));
        ep.sinkDevs.push_back(right.Get(1));
    }
    FinishNetwork(devices, bottleneck);
    TraceQueues(bottleneck);
    return ep;
}

std::string
JsonList(const std::vector<uint64_t>& v)
{
    std::ostringstream o;
    for (size_t i = 0; i < v.size(); ++i)
    {
        o << (i ? "," : "") << v[i];
    }
    return o.str();
}

// The extra JSON keys of the added scenarios (appended after the common ones).
std::string
ExtraJson(uint32_t seed, const std::vector<double>& starts)
{
    std::vector<uint64_t> to, rec, retx, tx;
    for (const FlowProbe& f : g_probes)
    {
        to.push_back(f.timeouts);
        rec.push_back(f.recoveries);
        retx.push_back(f.retxSegments);
        tx.push_back(f.txSegments);
    }
    std::ostringstream o;
    o << ",\"seed\":" << seed << ",\"error_drops\":" << g_errorDrops << ",\"per_flow_timeouts\":["
      << JsonList(to) << "],\"per_flow_recoveries\":[" << JsonList(rec)
      << "],\"per_flow_retx_segments\":[" << JsonList(retx) << "],\"per_flow_tx_segments\":["
      << JsonList(tx) << "],\"per_flow_start_s\":[";
    o.setf(std::ios::fixed);
    o.precision(6);
    for (size_t i = 0; i < starts.size(); ++i)
    {
        o << (i ? "," : "") << starts[i];
    }
    o << "]";
    return o.str();
}

double
Mbps(uint64_t bytes, double seconds)
{
    return double(bytes) * 8.0 / seconds / 1e6;
}

} // namespace

int
main(int argc, char** argv)
{
    const Clock::time_point processStart = Clock::now();

    std::string scenarioName;
    std::string recovery = "classic";
    double simSeconds = -1; // < 0: the scenario's own duration
    uint32_t flows = 0;     // 0: the scenario's own flow count (dumbbells only)
    uint32_t seed = 1;      // added scenarios: ns-3's RngRun (the loss draws of lossy)
    std::string traceFile;  // added scenarios: cwnd/ssthresh/RTO/RTT/state changes per flow
    std::string startList;  // added scenarios: comma-separated start times (s) of the flows
    std::string pcapPrefix; // added scenarios: pcap of every device, <prefix>-<node>-<dev>.pcap

    CommandLine cmd(__FILE__);
    cmd.Usage("ns-3 reference TCP scenarios for tcplab (prints one JSON line)");
    cmd.AddValue("scenario", "p2p-1 | dumbbell-10 | dumbbell-100 | lossy | asym | mixed-rtt",
                 scenarioName);
    cmd.AddValue("simTime", "simulated seconds (default: the scenario's)", simSeconds);
    cmd.AddValue("flows", "number of bulk flows, dumbbells only (default: the scenario's)", flows);
    cmd.AddValue("recovery", "loss recovery: classic | prr", recovery);
    cmd.AddValue("seed", "lossy, asym, mixed-rtt: RngRun of the run (default 1)", seed);
    cmd.AddValue("traceFile", "lossy, asym, mixed-rtt: write per-flow cwnd/RTO/... changes here",
                 traceFile);
    cmd.AddValue("pcap", "lossy, asym, mixed-rtt: write a pcap of every device with this prefix",
                 pcapPrefix);
    cmd.AddValue("starts", "lossy, asym, mixed-rtt: flow start times in s, comma-separated "
                 "(default: flow i at 0.1 * i / flows)", startList);
    cmd.Parse(argc, argv);

    const Scenario* s = nullptr;
    for (const Scenario& c : kScenarios)
    {
        if (scenarioName == c.name)
        {
            s = &c;
        }
    }
    NS_ABORT_MSG_IF(!s, "--scenario must be p2p-1, dumbbell-10, dumbbell-100, lossy, asym or "
                        "mixed-rtt (got '"
                            << scenarioName << "')");
    NS_ABORT_MSG_IF(recovery != "classic" && recovery != "prr",
                    "--recovery must be classic or prr (got '" << recovery << "')");
    NS_ABORT_MSG_IF(s->shape == Shape::PointToPoint && flows > 1, "p2p-1 has exactly one flow");
    if (simSeconds < 0)
    {
        simSeconds = s->simSeconds;
    }
    if (flows == 0)
    {
        flows = s->flows;
    }

    SetTcpDefaults(recovery);
    const bool added = s->shape == Shape::Lossy || s->shape == Shape::Asym ||
                       s->shape == Shape::MixedRtt;
    NS_ABORT_MSG_IF(!added && (seed != 1 || !traceFile.empty() || !startList.empty() ||
                               !pcapPrefix.empty()),
                    "--seed, --traceFile, --starts and --pcap are for lossy, asym and mixed-rtt only");
    NS_ABORT_MSG_IF(s->shape == Shape::Asym && flows != 2, "asym has exactly two flows");
    std::vector<Ptr<PacketSink>> sinks;
    std::vector<double> starts;
    if (!added)
    {
        Endpoints ep =
            s->shape == Shape::PointToPoint ? BuildPointToPoint(*s) : BuildDumbbell(*s, flows);
        sinks = InstallFlows(ep, simSeconds, s->startSpreadSeconds);
    }
    else
    {
        RngSeedManager::SetRun(seed);
        if (!traceFile.empty())
        {
            g_trace = std::fopen(traceFile.c_str(), "w");
            NS_ABORT_MSG_IF(!g_trace, "cannot write " << traceFile);
        }
        Endpoints ep = s->shape == Shape::Lossy ? BuildLossy(*s, flows)
                       : s->shape == Shape::Asym ? BuildAsym(*s)
                                                 : BuildMixedRtt(*s, flows);
        std::vector<uint16_t> ports;
        for (uint32_t i = 0; i < flows; ++i)
        {
            ports.push_back(uint16_t(kSinkPort + (s->shape == Shape::MixedRtt ? 0 : i)));
            starts.push_back(s->startSpreadSeconds * double(i) / double(flows));
        }
        if (!startList.empty())
        {
            std::istringstream in(startList);
            std::string item;
            for (uint32_t i = 0; i < flows; ++i)
            {
                NS_ABORT_MSG_IF(!std::getline(in, item, ','), "--starts needs " << flows << " times");
                starts[i] = std::stod(item);
            }
            NS_ABORT_MSG_IF(std::getline(in, item, ','), "--starts has more than " << flows << " times");
        }
        sinks = InstallFlowsWithPorts(ep, ports, starts, simSeconds);
        if (!pcapPrefix.empty())
        {
            PointToPointHelper().EnablePcapAll(pcapPrefix);
        }
    }

    Simulator::Stop(Seconds(simSeconds));
    const Clock::time_point runStart = Clock::now();
    Simulator::Run();
    const double wallRun = std::chrono::duration<double>(Clock::now() - runStart).count();
    const uint64_t events = Simulator::GetEventCount();

    uint64_t rxBytes = 0;
    std::ostringstream perFlow;
    perFlow.setf(std::ios::fixed);
    perFlow.precision(4);
    for (size_t i = 0; i < sinks.size(); ++i)
    {
        const uint64_t b = sinks[i]->GetTotalRx();
        rxBytes += b;
        perFlow << (i ? "," : "") << Mbps(b, simSeconds);
    }
    const std::string extra = added ? ExtraJson(seed, starts) : std::string();
    if (g_trace)
    {
        std::fclose(g_trace);
    }
    Simulator::Destroy();
    const double wallTotal = std::chrono::duration<double>(Clock::now() - processStart).count();

    std::printf("{\"scenario\":\"%s\",\"sim_seconds\":%g,\"flows\":%zu,\"recovery\":\"%s\","
                "\"goodput_mbps\":%.4f,\"per_flow_goodput_mbps\":[%s],\"rx_bytes\":%llu,"
                "\"rx_data_pkts\":%llu,\"rx_all_pkts\":%llu,\"link_tx_pkts\":%llu,"
                "\"bottleneck_drops\":%llu,\"other_drops\":%llu,\"events\":%llu,"
                "\"wall_run_s\":%.4f,\"wall_total_s\":%.4f%s}\n",
                s->name,
                simSeconds,
                sinks.size(),
                recovery.c_str(),
                Mbps(rxBytes, simSeconds),
                perFlow.str().c_str(),
                static_cast<unsigned long long>(rxBytes),
                static_cast<unsigned long long>(g_tally.rxDataPkts),
                static_cast<unsigned long long>(g_tally.rxAllPkts),
                static_cast<unsigned long long>(g_tally.linkTxPkts),
                static_cast<unsigned long long>(g_tally.bottleneckDrops),
                static_cast<unsigned long long>(g_tally.otherDrops),
                static_cast<unsigned long long>(events),
                wallRun,
                wallTotal,
                extra.c_str());
    return 0;
}
