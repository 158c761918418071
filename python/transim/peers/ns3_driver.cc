// transim's ns-3 driver: one program, compiled once, that runs any scenario the translator
// (transim/peers/ns3.py) writes as a spec file, and prints the measurements as JSON.
//
// Spec file, one item per line (fields separated by spaces; seconds, bits/s, bytes):
//   duration <s>
//   seed <n>
//   mtu <bytes>                                    (every device; 1500 by default)
//   node <name>
//   channel <a> <b> <delay> <rate a->b> <rate b->a> <queue a->b> <queue b->a> <unit p|B>
//           <loss a->b> <loss b->a>
//   flow <i> <src> <dst> <start> <bytes, 0 = unlimited> <cc TypeId> <recovery TypeId>
//        key=value ...   (mss sack ts ws rcvbuf sndbuf iw ssthresh delack_count
//                         delack_timeout nodelay lt dupthresh minrto connrto clockgran pacing)
//   drop <a> <b> <flow> <segment> <transmission>   (scripted drop on the wire a->b)
//   trace <i>                                      (record flow i's cwnd, ssthresh, RTTs and
//                                                   each data segment's send time and seq)
//
// Every device queue is the drop-tail queue the spec names (the traffic-control layer is
// removed), losses happen at the receiving device (ns-3's usual ReceiveErrorModel place), and
// every flow is a TCP connection from a bulk sender to a sink on port 9000 + i.
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/ppp-header.h"
#include "ns3/traffic-control-module.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

using namespace ns3;

namespace
{

/// Bernoulli loss per packet plus scripted drops of given (flow, segment, transmission).
class TransimErrorModel : public ErrorModel
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("TransimErrorModel")
                                .SetParent<ErrorModel>()
                                .AddConstructor<TransimErrorModel>();
        return tid;
    }

    double p = 0;
    const std::vector<uint32_t>* mss = nullptr; // per flow
    std::set<std::tuple<uint32_t, uint32_t, uint32_t>> script;
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> seen;
    Ptr<UniformRandomVariable> rng = CreateObject<UniformRandomVariable>();
    uint64_t lossDrops = 0;
    uint64_t scriptDrops = 0;

  private:
    bool DoCorrupt(Ptr<Packet> p0) override
    {
        if (!script.empty())
        {
            Ptr<Packet> c = p0->Copy();
            PppHeader ppp;
            Ipv4Header ip;
            TcpHeader tcp;
            c->RemoveHeader(ppp);
            c->RemoveHeader(ip);
            if (ip.GetProtocol() == 6)
            {
                c->RemoveHeader(tcp);
                uint16_t port = tcp.GetDestinationPort();
                if (c->GetSize() > 0 && port >= 9000 && port - 9000u < mss->size())
                {
                    uint32_t flow = port - 9000;
                    uint32_t seg = (tcp.GetSequenceNumber().GetValue() - 1) / (*mss)[flow] + 1;
                    uint32_t tx = ++seen[{flow, seg}];
                    if (script.count({flow, seg, tx}))
                    {
                        scriptDrops++;
                        return true;
                    }
                }
            }
        }
        if (p > 0 && rng->GetValue() < p)
        {
            lossDrops++;
            return true;
        }
        return false;
    }

    void DoReset() override
    {
    }
};

/// One direction of a channel: its device queue's books.
struct Direction
{
    std::string name;
    Ptr<PointToPointNetDevice> tx;
    Ptr<TransimErrorModel> em;
    uint64_t queueDrops = 0;
    uint64_t packetsOut = 0;
    uint32_t qlen = 0;
    double lastChange = 0;
    double area = 0;
    uint32_t maxQueue = 0;
};

/// A flow: sender socket, sink, books.
struct Flow
{
    uint32_t id = 0;
    std::string src, dst;
    double start = 0;
    uint64_t bytes = 0; // 0: unlimited
    std::string cc, recovery;
    std::map<std::string, std::string> opt;
    Ptr<Socket> tx;
    Ptr<Socket> listen;
    uint64_t queued = 0;
    uint64_t rx = 0;
    double completion = -1;
    uint64_t dataSegments = 0;
    uint64_t retransmissions = 0;
    uint64_t timeouts = 0;
    uint64_t recoveries = 0;
    uint32_t highest = 0;
    bool traced = false;
    std::vector<std::pair<double, uint32_t>> cwnd;
    std::vector<std::pair<double, uint32_t>> ssthresh;
    std::vector<std::pair<double, double>> srtt;    // smoothed RTT (s)
    std::vector<std::pair<double, double>> lastRtt; // the RTT sample (s)
    std::vector<std::pair<double, uint32_t>> sent;  // each data segment's (time, seq)
};

std::vector<Flow> flows;
std::vector<Direction> dirs;
std::vector<uint32_t> flowMss;

double
SimNow()
{
    return Simulator::Now().GetSeconds();
}

void
Fill(Flow* f)
{
    while (true)
    {
        uint64_t left = f->bytes ? f->bytes - f->queued : UINT64_MAX;
        uint32_t room = f->tx->GetTxAvailable();
        uint32_t n = static_cast<uint32_t>(std::min<uint64_t>({left, room, 1u << 16}));
        if (n == 0)
        {
            return;
        }
        int sent = f->tx->Send(Create<Packet>(n));
        if (sent <= 0)
        {
            return;
        }
        f->queued += sent;
    }
}

void
OnRecv(Flow* f, Ptr<Socket> s)
{
    Ptr<Packet> p;
    while ((p = s->Recv()))
    {
        f->rx += p->GetSize();
    }
    if (f->bytes && f->completion < 0 && f->rx >= f->bytes)
    {
        f->completion = SimNow() - f->start;
    }
}

void
OnAccept(Flow* f, Ptr<Socket> s, const Address&)
{
    s->SetRecvCallback([f](Ptr<Socket> c) { OnRecv(f, c); });
}

void
OnTx(Flow* f, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (p->GetSize() == 0)
    {
        return;
    }
    f->dataSegments++;
    uint32_t seq = h.GetSequenceNumber().GetValue();
    if (f->traced)
    {
        f->sent.emplace_back(SimNow(), seq);
    }
    if (seq + p->GetSize() <= f->highest)
    {
        f->retransmissions++;
    }
    else
    {
        f->highest = seq + p->GetSize();
    }
}

void
OnCongState(Flow* f, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    if (now == TcpSocketState::CA_LOSS)
    {
        f->timeouts++;
    }
    else if (now == TcpSocketState::CA_RECOVERY)
    {
        f->recoveries++;
    }
}

void
OnQueue(Direction* d, uint32_t, uint32_t now)
{
    double t = SimNow();
    d->area += d->qlen * (t - d->lastChange);
    d->lastChange = t;
    d->qlen = now;
    d->maxQueue = std::max(d->maxQueue, now);
}

/// Print a time series as JSON pairs, each value with `fmt`.
template <typename T>
void
PrintSeries(const std::vector<std::pair<double, T>>& series, const char* fmt)
{
    for (size_t k = 0; k < series.size(); k++)
    {
        std::printf("%s[%.9f, ", k ? ", " : "", series[k].first);
        std::printf(fmt, series[k].second);
        std::printf("]");
    }
}

[[noreturn]] void
Fail(const std::string& why)
{
    std::fprintf(stderr, "ns3-driver: %s\n", why.c_str());
    std::exit(2);
}

TypeId
Lookup(const std::string& name)
{
    TypeId tid;
    if (!TypeId::LookupByNameFailSafe(name, &tid))
    {
        Fail("this ns-3 has no " + name);
    }
    return tid;
}

std::string
Opt(const Flow& f, const std::string& k)
{
    auto it = f.opt.find(k);
    if (it == f.opt.end())
    {
        Fail("flow " + std::to_string(f.id) + " lacks option " + k);
    }
    return it->second;
}

} // namespace

int
main(int argc, char** argv)
{
    if (argc != 2)
    {
        Fail("usage: ns3-driver SPEC");
    }
    std::ifstream in(argv[1]);
    if (!in)
    {
        Fail(std::string("cannot read ") + argv[1]);
    }
    double duration = 10;
    uint32_t seed = 1;
    uint32_t mtu = 1500;
    std::map<std::string, Ptr<Node>> nodes;
    std::vector<std::string> order;
    struct Chan
    {
        std::string a, b, unit;
        double delay, rab, rba, lab, lba;
        uint64_t qab, qba;
    };
    std::vector<Chan> chans;
    std::vector<std::tuple<std::string, std::string, uint32_t, uint32_t, uint32_t>> drops;
    std::string line;
    while (std::getline(in, line))
    {
        std::istringstream ls(line);
        std::string kind;
        if (!(ls >> kind) || kind[0] == '#')
        {
            continue;
        }
        if (kind == "duration")
        {
            ls >> duration;
        }
        else if (kind == "seed")
        {
            ls >> seed;
        }
        else if (kind == "mtu")
        {
            ls >> mtu;
        }
        else if (kind == "node")
        {
            std::string n;
            ls >> n;
            nodes[n] = CreateObject<Node>();
            order.push_back(n);
        }
        else if (kind == "channel")
        {
            Chan c;
            ls >> c.a >> c.b >> c.delay >> c.rab >> c.rba >> c.qab >> c.qba >> c.unit >> c.lab >>
                c.lba;
            chans.push_back(c);
        }
        else if (kind == "flow")
        {
            Flow f;
            ls >> f.id >> f.src >> f.dst >> f.start >> f.bytes >> f.cc >> f.recovery;
            std::string kv;
            while (ls >> kv)
            {
                auto eq = kv.find('=');
                f.opt[kv.substr(0, eq)] = kv.substr(eq + 1);
            }
            flows.push_back(f);
        }
        else if (kind == "drop")
        {
            std::string a, b;
            uint32_t fl, seg, tx;
            ls >> a >> b >> fl >> seg >> tx;
            drops.emplace_back(a, b, fl, seg, tx);
        }
        else if (kind == "trace")
        {
            uint32_t i;
            ls >> i;
            flows.at(i).traced = true;
        }
        else
        {
            Fail("unknown spec line: " + line);
        }
    }
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);

    NodeContainer all;
    for (auto& n : order)
    {
        all.Add(nodes[n]);
    }
    InternetStackHelper stack;
    stack.Install(all);
    Ipv4AddressHelper addr;
    addr.SetBase("10.0.0.0", "255.255.255.0");
    TrafficControlHelper tch;
    std::map<std::pair<std::string, std::string>, Direction*> byName;
    dirs.reserve(2 * chans.size());
    int64_t stream = 1;
    for (auto& f : flows)
    {
        flowMss.push_back(std::stoul(Opt(f, "mss")));
    }
    for (auto& c : chans)
    {
        PointToPointHelper p2p;
        p2p.SetChannelAttribute("Delay", TimeValue(Seconds(c.delay)));
        p2p.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1p"));
        p2p.SetDeviceAttribute("Mtu", UintegerValue(mtu));
        // Without flow control a full device queue drops the packet itself (and its Drop
        // trace counts it); with it, the traffic-control layer would drop it per node.
        p2p.DisableFlowControl();
        NetDeviceContainer devs = p2p.Install(nodes.at(c.a), nodes.at(c.b));
        addr.Assign(devs);
        addr.NewNetwork();
        for (uint32_t k = 0; k < 2; k++)
        {
            // Assign installs ns-3's default queue disc where a device has flow control;
            // the device queue is to be the only queue.
            auto tc = devs.Get(k)->GetNode()->GetObject<TrafficControlLayer>();
            if (tc && tc->GetRootQueueDiscOnDevice(devs.Get(k)))
            {
                tch.Uninstall(devs.Get(k));
            }
        }
        for (int k = 0; k < 2; k++)
        {
            auto tx = DynamicCast<PointToPointNetDevice>(devs.Get(k));
            auto rx = DynamicCast<PointToPointNetDevice>(devs.Get(1 - k));
            double rate = k == 0 ? c.rab : c.rba;
            uint64_t q = k == 0 ? c.qab : c.qba;
            tx->SetDataRate(DataRate(static_cast<uint64_t>(rate)));
            tx->GetQueue()->SetMaxSize(QueueSize(c.unit == "B" ? QueueSizeUnit::BYTES
                                                                 : QueueSizeUnit::PACKETS,
                                                  static_cast<uint32_t>(q)));
            dirs.push_back(Direction());
            Direction* d = &dirs.back();
            d->name = (k == 0 ? c.a + "->" + c.b : c.b + "->" + c.a);
            d->tx = tx;
            d->em = CreateObject<TransimErrorModel>();
            d->em->p = k == 0 ? c.lab : c.lba;
            d->em->mss = &flowMss;
            d->em->rng->SetStream(stream++);
            rx->SetReceiveErrorModel(d->em);
            bool ok = tx->GetQueue()->TraceConnectWithoutContext(
                "Drop",
                MakeBoundCallback(+[](Direction* d, Ptr<const Packet>) { d->queueDrops++; }, d));
            ok &= tx->TraceConnectWithoutContext(
                "PhyTxBegin",
                MakeBoundCallback(+[](Direction* d, Ptr<const Packet>) { d->packetsOut++; }, d));
            ok &= tx->GetQueue()->TraceConnectWithoutContext("PacketsInQueue",
                                                             MakeBoundCallback(&OnQueue, d));
            if (!ok)
            {
                Fail("cannot trace the queue of " + d->name);
            }
            byName[{k == 0 ? c.a : c.b, k == 0 ? c.b : c.a}] = d;
        }
    }
    for (auto& [a, b, fl, seg, tx] : drops)
    {
        auto it = byName.find({a, b});
        if (it == byName.end())
        {
            Fail("drop on unknown link " + a + "->" + b);
        }
        it->second->em->script.insert({fl, seg, tx});
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    for (auto& f : flows)
    {
        Config::SetDefault("ns3::TcpSocketState::EnablePacing",
                           BooleanValue(Opt(f, "pacing") == "1"));
        // ns-3's TcpCubic has HyStart on by default; the translator says whether transim's
        // flow has it (tcp.hystart).
        Config::SetDefault("ns3::TcpCubic::HyStart", BooleanValue(Opt(f, "hystart") == "1"));
        auto make = [&](Ptr<Node> n) {
            Ptr<Socket> s = n->GetObject<TcpL4Protocol>()->CreateSocket(Lookup(f.cc),
                                                                       Lookup(f.recovery));
            s->SetAttribute("SegmentSize", UintegerValue(std::stoul(Opt(f, "mss"))));
            s->SetAttribute("SndBufSize", UintegerValue(std::stoul(Opt(f, "sndbuf"))));
            s->SetAttribute("RcvBufSize", UintegerValue(std::stoul(Opt(f, "rcvbuf"))));
            s->SetAttribute("InitialCwnd", UintegerValue(std::stoul(Opt(f, "iw"))));
            s->SetAttribute("InitialSlowStartThreshold",
                            UintegerValue(std::stoul(Opt(f, "ssthresh"))));
            s->SetAttribute("DelAckCount", UintegerValue(std::stoul(Opt(f, "delack_count"))));
            s->SetAttribute("DelAckTimeout",
                            TimeValue(Seconds(std::stod(Opt(f, "delack_timeout")))));
            s->SetAttribute("TcpNoDelay", BooleanValue(Opt(f, "nodelay") == "1"));
            s->SetAttribute("ConnTimeout", TimeValue(Seconds(std::stod(Opt(f, "connrto")))));
            s->SetAttribute("Sack", BooleanValue(Opt(f, "sack") == "1"));
            s->SetAttribute("Timestamp", BooleanValue(Opt(f, "ts") == "1"));
            s->SetAttribute("WindowScaling", BooleanValue(Opt(f, "ws") == "1"));
            s->SetAttribute("LimitedTransmit", BooleanValue(Opt(f, "lt") == "1"));
            s->SetAttribute("ReTxThreshold", UintegerValue(std::stoul(Opt(f, "dupthresh"))));
            s->SetAttribute("MinRto", TimeValue(Seconds(std::stod(Opt(f, "minrto")))));
            s->SetAttribute("ClockGranularity",
                            TimeValue(Seconds(std::stod(Opt(f, "clockgran")))));
            return s;
        };
        Flow* fp = &f;
        f.listen = make(nodes.at(f.dst));
        f.listen->Bind(InetSocketAddress(Ipv4Address::GetAny(), 9000 + f.id));
        f.listen->Listen();
        f.listen->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                    MakeBoundCallback(&OnAccept, fp));
        f.tx = make(nodes.at(f.src));
        f.tx->Bind();
        f.tx->TraceConnectWithoutContext("Tx", MakeBoundCallback(&OnTx, fp));
        f.tx->TraceConnectWithoutContext("CongState", MakeBoundCallback(&OnCongState, fp));
        if (f.traced)
        {
            bool ok = f.tx->TraceConnectWithoutContext(
                "CongestionWindow",
                MakeBoundCallback(+[](Flow* f, uint32_t, uint32_t c) {
                    f->cwnd.emplace_back(SimNow(), c);
                },
                                  fp));
            ok &= f.tx->TraceConnectWithoutContext(
                "SlowStartThreshold",
                MakeBoundCallback(+[](Flow* f, uint32_t, uint32_t c) {
                    f->ssthresh.emplace_back(SimNow(), c);
                },
                                  fp));
            ok &= f.tx->TraceConnectWithoutContext(
                "RTT",
                MakeBoundCallback(+[](Flow* f, Time, Time r) {
                    f->srtt.emplace_back(SimNow(), r.GetSeconds());
                },
                                  fp));
            ok &= f.tx->TraceConnectWithoutContext(
                "LastRTT",
                MakeBoundCallback(+[](Flow* f, Time, Time r) {
                    f->lastRtt.emplace_back(SimNow(), r.GetSeconds());
                },
                                  fp));
            if (!ok)
            {
                Fail("cannot trace flow " + std::to_string(f.id));
            }
        }
        f.tx->SetSendCallback(MakeBoundCallback(+[](Flow* f, Ptr<Socket>, uint32_t) { Fill(f); },
                                                fp));
        f.tx->SetConnectCallback(MakeBoundCallback(+[](Flow* f, Ptr<Socket>) { Fill(f); }, fp),
                                 MakeNullCallback<void, Ptr<Socket>>());
        Ipv4Address to = nodes.at(f.dst)->GetObject<Ipv4>()->GetAddress(1, 0).GetLocal();
        Simulator::Schedule(Seconds(f.start), [fp, to]() {
            fp->tx->Connect(InetSocketAddress(to, 9000 + fp->id));
        });
    }

    Simulator::Stop(Seconds(duration));
    auto t0 = std::chrono::steady_clock::now();
    Simulator::Run();
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    double end = SimNow();
    std::printf("{\"events\": %lu, \"wall\": %.6f, \"end\": %.9f,\n \"flows\": [",
                static_cast<unsigned long>(Simulator::GetEventCount()),
                wall,
                end);
    for (size_t i = 0; i < flows.size(); i++)
    {
        auto& f = flows[i];
        std::printf("%s\n  {\"id\": %u, \"bytes_delivered\": %lu, \"data_segments_sent\": %lu, "
                    "\"retransmissions\": %lu, \"timeouts\": %lu, \"fast_recoveries\": %lu, "
                    "\"completion_time\": %s, \"cwnd\": [",
                    i ? "," : "",
                    f.id,
                    static_cast<unsigned long>(f.rx),
                    static_cast<unsigned long>(f.dataSegments),
                    static_cast<unsigned long>(f.retransmissions),
                    static_cast<unsigned long>(f.timeouts),
                    static_cast<unsigned long>(f.recoveries),
                    f.completion < 0 ? "null" : std::to_string(f.completion).c_str());
        PrintSeries(f.cwnd, "%u");
        std::printf("], \"ssthresh\": [");
        PrintSeries(f.ssthresh, "%u");
        std::printf("], \"srtt\": [");
        PrintSeries(f.srtt, "%.9f");
        std::printf("], \"last_rtt\": [");
        PrintSeries(f.lastRtt, "%.9f");
        std::printf("], \"sent\": [");
        PrintSeries(f.sent, "%u");
        std::printf("]}");
    }
    std::printf("],\n \"links\": [");
    for (size_t i = 0; i < dirs.size(); i++)
    {
        auto& d = dirs[i];
        OnQueue(&d, d.qlen, d.qlen);
        std::printf("%s\n  {\"name\": \"%s\", \"queue_drops\": %lu, \"loss_drops\": %lu, "
                    "\"script_drops\": %lu, \"packets_out\": %lu, \"mean_queue_packets\": %.9g, "
                    "\"max_queue_packets\": %u}",
                    i ? "," : "",
                    d.name.c_str(),
                    static_cast<unsigned long>(d.queueDrops),
                    static_cast<unsigned long>(d.em->lossDrops),
                    static_cast<unsigned long>(d.em->scriptDrops),
                    static_cast<unsigned long>(d.packetsOut),
                    end > 0 ? d.area / end : 0.0,
                    d.maxQueue);
    }
    std::printf("]}\n");
    Simulator::Destroy();
    return 0;
}
