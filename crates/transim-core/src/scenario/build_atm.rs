//! Build the ATM layer from the `[atm]` table: mark the links that carry cells, give every
//! output port of an ATM switch its cell discipline, and set up each flow's VC along its
//! route (both directions over the same links) with its adapters.

use super::build::Net;
use super::error::ScenarioError;
use super::schema::*;
use crate::engine::Routes;
use crate::net::atm::abr::{AbrParams, AbrSource};
use crate::net::atm::layer::AtmNet;
use crate::net::atm::port::{CellPort, Discard, Efci, Erica, EricaParams};
use crate::net::atm::vc::VcDirection;
use crate::net::qdisc::{Drr, Sched};
use crate::net::QueueLimit;
use crate::results::route_on;
use crate::sim::MILLISECOND;

/// Bits per cell.
const CELL_BITS: f64 = 424.0;

fn err(path: &str, msg: impl Into<String>) -> ScenarioError {
    ScenarioError::new(path, msg)
}

/// The ATM layer, or None when the scenario has no `[atm]` table.
pub(super) fn attach(
    sc: &Scenario,
    net: &mut Net,
    routes: &Routes,
    endpoints: &[(u32, u32)],
) -> Result<Option<Box<AtmNet>>, ScenarioError> {
    let topo = &sc.topology;
    let explicit_atm: Vec<bool> = topo
        .links
        .iter()
        .flatten()
        .map(|l| l.atm.unwrap_or(false))
        .collect();
    for name in ["bottleneck", "access", "sender_access", "receiver_access"] {
        let spec = match name {
            "bottleneck" => &topo.bottleneck,
            "access" => &topo.access,
            "sender_access" => &topo.sender_access,
            _ => &topo.receiver_access,
        };
        if spec.as_ref().is_some_and(|l| l.atm.is_some()) {
            return Err(err(
                &format!("topology.{name}.atm"),
                "is only for explicit topologies; in a dumbbell the [atm] table makes every link carry cells",
            ));
        }
    }
    let Some(spec) = &sc.atm else {
        if let Some(i) = explicit_atm.iter().position(|&a| a) {
            return Err(err(
                &format!("topology.links[{i}].atm"),
                "is true but the scenario has no [atm] table; add one (it sets the service and the switches)",
            ));
        }
        return Ok(None);
    };
    let nlinks = net.links.len();
    let cells: Vec<bool> = match topo.kind {
        TopologyKind::Dumbbell => vec![true; nlinks],
        // Generated topologies are explicit once parsed.
        _ => (0..nlinks).map(|l| explicit_atm[l / 2]).collect(),
    };
    if !cells.iter().any(|&c| c) {
        return Err(err(
            "atm",
            "is given but no link carries cells; mark links with atm = true",
        ));
    }
    if let Some(l) =
        (0..nlinks).find(|&l| cells[l] && net.links[l].jitter().is_some_and(|j| j.reorder))
    {
        return Err(err(
            &format!("link {}: reorder", net.link_names[l]),
            "is true on a link that carries ATM cells; a virtual circuit delivers its cells in order",
        ));
    }
    let service = spec.service.unwrap_or_default();
    let discard = spec.discard.unwrap_or_default();
    let feedback = spec.feedback.unwrap_or_default();
    let buffer = spec.switch_buffer.unwrap_or(4096);
    if buffer == 0 {
        return Err(err(
            "atm.switch_buffer",
            "got 0; expected at least one cell",
        ));
    }
    let epd = match (discard, spec.epd_threshold) {
        (DiscardSpec::Epd | DiscardSpec::EpdPpd, Some(t)) if t == 0 || t > buffer => {
            return Err(err(
                "atm.epd_threshold",
                format!("got {t}; expected 1 to the switch buffer ({buffer} cells)"),
            ))
        }
        (DiscardSpec::Epd | DiscardSpec::EpdPpd, Some(t)) => Some(t),
        (DiscardSpec::Epd | DiscardSpec::EpdPpd, None) => {
            return Err(err(
                "atm.epd_threshold",
                "is required with discard = \"epd\" or \"epd_ppd\" (cells waiting above which new frames are refused)",
            ))
        }
        (_, Some(_)) => {
            return Err(err(
                "atm.epd_threshold",
                "is set but discard is not \"epd\" or \"epd_ppd\"",
            ))
        }
        (_, None) => None,
    };
    if feedback != FeedbackSpec::None && service != ServiceSpec::Abr {
        return Err(err(
            "atm.feedback",
            "needs service = \"abr\": switch feedback acts on ABR sources",
        ));
    }
    if spec.abr.is_some() && service != ServiceSpec::Abr {
        return Err(err("atm.abr", "is set but service is not \"abr\""));
    }
    let efci = if feedback == FeedbackSpec::Efci {
        let (high, low) = (spec.efci_high.unwrap_or(300), spec.efci_low.unwrap_or(200));
        if low >= high {
            return Err(err(
                "atm.efci_low",
                format!("got {low}; expected below efci_high ({high})"),
            ));
        }
        Some(Efci { high, low })
    } else {
        for (v, n) in [(spec.efci_high, "efci_high"), (spec.efci_low, "efci_low")] {
            if v.is_some() {
                return Err(err(
                    &format!("atm.{n}"),
                    "is set but feedback is not \"efci\"",
                ));
            }
        }
        None
    };
    let erica = if feedback == FeedbackSpec::Erica {
        let target = spec.erica_target.map_or(0.9, |p| p.0);
        if target <= 0.0 {
            return Err(err(
                "atm.erica_target",
                "got 0; expected a utilisation above 0 (typically 0.9 to 0.95)",
            ));
        }
        let interval = spec.erica_interval.map_or(MILLISECOND, |d| d.0);
        if interval == 0 {
            return Err(err(
                "atm.erica_interval",
                "got 0; expected a positive averaging interval",
            ));
        }
        let measured_ccr = match spec.erica_ccr.unwrap_or_default() {
            EricaCcrSpec::Measured => true,
            EricaCcrSpec::Rm => false,
        };
        Some(EricaParams {
            target,
            interval,
            measured_ccr,
        })
    } else {
        if spec.erica_target.is_some() || spec.erica_interval.is_some() || spec.erica_ccr.is_some()
        {
            return Err(err(
                "atm.erica_target",
                "ERICA settings are set but feedback is not \"erica\"",
            ));
        }
        None
    };
    // Nodes: a switch has only cell links and is no flow's endpoint.
    let mut is_endpoint = vec![false; net.names.len()];
    for &(s, d) in endpoints {
        is_endpoint[s as usize] = true;
        is_endpoint[d as usize] = true;
    }
    let is_switch: Vec<bool> = (0..net.names.len())
        .map(|n| {
            !is_endpoint[n]
                && !net.out[n].is_empty()
                && net.out[n].iter().all(|&(l, _)| cells[l as usize])
        })
        .collect();
    for (l, link) in net.links.iter_mut().enumerate() {
        if !cells[l] {
            continue;
        }
        let name = &net.link_names[l];
        if link.overhead != 0 {
            return Err(err(
                "topology",
                format!("link {name} carries cells and has an overhead; cells are 53 bytes on the wire, remove `overhead`"),
            ));
        }
        link.cells = true;
        let given = net.queue_given[l];
        if let (true, QueueLimit::Bytes(_)) = (given, link.limit) {
            return Err(err(
                "topology",
                format!("link {name} carries cells; give its queue in cells (a number), not bytes"),
            ));
        }
        if is_switch[link.from as usize] {
            let buf = if given {
                match link.limit {
                    QueueLimit::Packets(n) => n.min(u32::MAX as u64) as u32,
                    QueueLimit::Bytes(_) => unreachable!("refused above"),
                }
            } else {
                buffer
            };
            link.limit = QueueLimit::Packets(buf as u64);
            let cell_rate = link.rate_bps / CELL_BITS;
            link.port = Some(Box::new(CellPort::new(
                buf,
                Discard {
                    epd_threshold: epd,
                    ppd: matches!(discard, DiscardSpec::Ppd | DiscardSpec::EpdPpd),
                },
                efci,
                erica.map(|p| Erica::new(p, cell_rate)),
            )));
            if spec.per_vc_queueing.unwrap_or(false) {
                link.set_scheduler(Some(Sched::Fq(Drr::new(53))));
            }
        } else if !given {
            // An end system's adapter holds whatever its transport hands it.
            link.limit = QueueLimit::Packets(u64::MAX / 2);
        }
    }
    let abr = if service == ServiceSpec::Abr {
        Some(spec.abr.clone().unwrap_or_default())
    } else {
        None
    };
    let llc = spec.llc_snap.unwrap_or(true);
    let mut vcs = Vec::with_capacity(endpoints.len());
    for (i, &(s, d)) in endpoints.iter().enumerate() {
        let path = route_on(routes, &net.links, s, d, i as u32);
        let atm_links: Vec<usize> = (0..path.len()).filter(|&k| cells[path[k]]).collect();
        let Some(&first) = atm_links.first() else {
            vcs.push(None);
            continue;
        };
        let last = *atm_links.last().expect("non-empty");
        if atm_links.len() != last - first + 1 {
            return Err(err(
                &format!("flows[{i}]"),
                "crosses ATM links in more than one stretch; a flow's VC carries one contiguous stretch of cell links",
            ));
        }
        let fwd: Vec<u32> = path[first..=last].iter().map(|&l| l as u32).collect();
        let rev: Vec<u32> = fwd.iter().rev().map(|&l| l ^ 1).collect();
        for (&f, &r) in fwd.iter().zip(rev.iter().rev()) {
            let (a, b) = (&net.links[f as usize], &net.links[r as usize]);
            debug_assert!(a.from == b.to && a.to == b.from, "links come in pairs");
        }
        let entry = net.links[fwd[0] as usize].from;
        let exit = net.links[*fwd.last().expect("non-empty") as usize].to;
        // The packets coming back must reach the VC where its reverse direction starts.
        let back = route_on(routes, &net.links, d, s, i as u32);
        if let Some(&l) = back.iter().find(|&&l| cells[l]) {
            if net.links[l].from != exit {
                return Err(err(
                    &format!("flows[{i}]"),
                    format!(
                        "returns over ATM links that start at {:?}, not where its VC ends ({:?}); make the routes symmetric",
                        net.names[net.links[l].from as usize],
                        net.names[exit as usize]
                    ),
                ));
            }
        }
        let mut dirs = [
            VcDirection::new(fwd.clone(), entry, exit, llc),
            VcDirection::new(rev.clone(), exit, entry, llc),
        ];
        if let Some(a) = &abr {
            for dir in dirs.iter_mut() {
                let first_rate = net.links[dir.path[0] as usize].rate_bps;
                dir.abr = Some(AbrSource::new(abr_params(a, first_rate)?));
            }
        }
        vcs.push(Some(Box::new(dirs)));
    }
    Ok(Some(Box::new(AtmNet { vcs })))
}

fn abr_params(a: &AbrSpec, link_bps: f64) -> Result<AbrParams, ScenarioError> {
    let pcr = a.pcr.map_or(link_bps, |r| r.0) / CELL_BITS;
    let mut p = AbrParams::defaults(pcr);
    p.mcr = a.mcr.map_or(0.0, |r| r.0 / CELL_BITS);
    p.icr = a.icr.map_or(pcr, |r| r.0 / CELL_BITS);
    if p.mcr > pcr {
        return Err(err("atm.abr.mcr", "is above the peak cell rate (pcr)"));
    }
    if p.icr > pcr || p.icr < p.mcr {
        return Err(err(
            "atm.abr.icr",
            "is outside [mcr, pcr]; the initial rate must lie between them",
        ));
    }
    for (v, n, slot) in [
        (a.rif, "rif", &mut p.rif),
        (a.rdf, "rdf", &mut p.rdf),
        (a.cdf, "cdf", &mut p.cdf),
    ] {
        if let Some(x) = v {
            if x.0 <= 0.0 {
                return Err(err(
                    &format!("atm.abr.{n}"),
                    "got 0; expected a factor above 0 (TM 4.0 signals 1/32768 to 1)",
                ));
            }
            *slot = x.0;
        }
    }
    if let Some(n) = a.nrm {
        if !(2..=256).contains(&n) {
            return Err(err(
                "atm.abr.nrm",
                format!("got {n}; expected 2 to 256 cells per forward RM cell (TM 4.0 signals 2 to 256)"),
            ));
        }
        p.nrm = n;
        p.crm = 16_777_215 / n;
    }
    if let Some(m) = a.mrm {
        if m == 0 || m > p.nrm {
            return Err(err(
                "atm.abr.mrm",
                format!("got {m}; expected 1 to nrm ({})", p.nrm),
            ));
        }
        p.mrm = m;
    }
    if let Some(c) = a.crm {
        if c == 0 {
            return Err(err("atm.abr.crm", "got 0; expected at least 1"));
        }
        p.crm = c;
    }
    if let Some(t) = a.trm {
        if t.0 == 0 {
            return Err(err("atm.abr.trm", "got 0; expected a positive time"));
        }
        p.trm = t.0;
    }
    if let Some(t) = a.adtf {
        if t.0 == 0 {
            return Err(err("atm.abr.adtf", "got 0; expected a positive time"));
        }
        p.adtf = t.0;
    }
    Ok(p)
}
