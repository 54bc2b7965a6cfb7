// tcp-reference.cc: the ns-3 side of tcplab's cross-validation. One program that builds and runs
// any of the three reference TCP scenarios (p2p-1, dumbbell-10, dumbbell-100) in ns-3 3.44 and
// prints one JSON line of results. Compiled against the ns3==3.44.post0 PyPI wheel by build.sh.
//
//   tcp-reference --scenario=p2p-1 | dumbbell-10 | dumbbell-100
//                 [--simTime=<s>] [--flows=<n>] [--recovery=classic|prr]
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
};

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

    CommandLine cmd(__FILE__);
    cmd.Usage("ns-3 reference TCP scenarios for tcplab (prints one JSON line)");
    cmd.AddValue("scenario", "p2p-1 | dumbbell-10 | dumbbell-100", scenarioName);
    cmd.AddValue("simTime", "simulated seconds (default: the scenario's)", simSeconds);
    cmd.AddValue("flows", "number of bulk flows, dumbbells only (default: the scenario's)", flows);
    cmd.AddValue("recovery", "loss recovery: classic | prr", recovery);
    cmd.Parse(argc, argv);

    const Scenario* s = nullptr;
    for (const Scenario& c : kScenarios)
    {
        if (scenarioName == c.name)
        {
            s = &c;
        }
    }
    NS_ABORT_MSG_IF(!s, "--scenario must be p2p-1, dumbbell-10 or dumbbell-100 (got '"
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
    Endpoints ep = s->shape == Shape::PointToPoint ? BuildPointToPoint(*s) : BuildDumbbell(*s, flows);
    std::vector<Ptr<PacketSink>> sinks = InstallFlows(ep, simSeconds, s->startSpreadSeconds);

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
    Simulator::Destroy();
    const double wallTotal = std::chrono::duration<double>(Clock::now() - processStart).count();

    std::printf("{\"scenario\":\"%s\",\"sim_seconds\":%g,\"flows\":%zu,\"recovery\":\"%s\","
                "\"goodput_mbps\":%.4f,\"per_flow_goodput_mbps\":[%s],\"rx_bytes\":%llu,"
                "\"rx_data_pkts\":%llu,\"rx_all_pkts\":%llu,\"link_tx_pkts\":%llu,"
                "\"bottleneck_drops\":%llu,\"other_drops\":%llu,\"events\":%llu,"
                "\"wall_run_s\":%.4f,\"wall_total_s\":%.4f}\n",
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
                wallTotal);
    return 0;
}
