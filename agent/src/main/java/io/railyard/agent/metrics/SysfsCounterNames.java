package io.railyard.agent.metrics;

import java.util.Map;

/**
 * Counter files and the metric each one becomes. The PMA counters and mlx5 hardware counters keep the names
 * node_exporter's infiniband collector gives them, with {@code railyard_rdma_} in place of {@code node_infiniband_},
 * so that dashboards can move between the two.
 */
final class SysfsCounterNames {
    /** A metric name (given without the prefix and {@code _total}), its help, and the factor the file's value is multiplied by. */
    record Mapping(String metric, String help, double factor) {
        Mapping {
            metric = RdmaPortCollector.PREFIX + metric; // once here, not on every sample of every scrape
        }
    }

    private static final String OCTETS = "; the PMA counts 4-octet words, multiplied by 4 here";

    static final Map<String, Mapping> COUNTERS = Map.ofEntries(
            Map.entry("port_rcv_data", new Mapping("port_data_received_bytes", "Data octets received on the port" + OCTETS, 4)),
            Map.entry("port_xmit_data", new Mapping("port_data_transmitted_bytes", "Data octets transmitted on the port" + OCTETS, 4)),
            Map.entry("port_rcv_packets", new Mapping("port_packets_received", "Packets received on all virtual lanes, errors included", 1)),
            Map.entry("port_xmit_packets", new Mapping("port_packets_transmitted", "Packets transmitted on all virtual lanes, errors included", 1)),
            Map.entry("unicast_rcv_packets", new Mapping("unicast_packets_received", "Unicast packets received, errors included", 1)),
            Map.entry("unicast_xmit_packets", new Mapping("unicast_packets_transmitted", "Unicast packets transmitted, errors included", 1)),
            Map.entry("multicast_rcv_packets", new Mapping("multicast_packets_received", "Multicast packets received, errors included", 1)),
            Map.entry("multicast_xmit_packets", new Mapping("multicast_packets_transmitted", "Multicast packets transmitted, errors included", 1)),
            Map.entry("port_rcv_errors", new Mapping("port_errors_received", "Packets with errors received on the port", 1)),
            Map.entry("port_rcv_discards", new Mapping("port_discards_received", "Inbound packets discarded because the port was down or congested", 1)),
            Map.entry("port_xmit_discards", new Mapping("port_discards_transmitted", "Outbound packets discarded because the port was down or congested", 1)),
            Map.entry("port_rcv_constraint_errors", new Mapping("port_constraint_errors_received", "Inbound packets discarded by partition or switch constraints", 1)),
            Map.entry("port_xmit_constraint_errors", new Mapping("port_constraint_errors_transmitted", "Outbound packets not sent because of partition or switch constraints", 1)),
            Map.entry("port_rcv_remote_physical_errors", new Mapping("port_receive_remote_physical_errors", "Packets received marked bad (EBP) by an upstream port", 1)),
            Map.entry("port_rcv_switch_relay_errors", new Mapping("port_receive_switch_relay_errors", "Packets a switch port could not forward", 1)),
            Map.entry("port_xmit_wait", new Mapping("port_transmit_wait", "Ticks with data to send but no flow-control credit: congestion, not an error", 1)),
            Map.entry("symbol_error", new Mapping("symbol_error", "Minor errors on the physical lanes: cable or optic trouble", 1)),
            Map.entry("link_error_recovery", new Mapping("link_error_recovery", "Times the link retrained after an error: a flapping link", 1)),
            Map.entry("link_downed", new Mapping("link_downed", "Times the link went down after failing to recover", 1)),
            Map.entry("local_link_integrity_errors", new Mapping("local_link_integrity_errors", "Times local physical errors crossed their threshold", 1)),
            Map.entry("excessive_buffer_overrun_errors", new Mapping("excessive_buffer_overrun_errors", "Flow-control periods with buffer overruns in a row", 1)),
            Map.entry("VL15_dropped", new Mapping("vl15_dropped", "Subnet management (VL15) packets dropped for lack of buffers", 1)));

    /** Pre-4.5 kernels' 64-bit counters in {@code counters_ext/}. */
    static final Map<String, Mapping> LEGACY = Map.ofEntries(
            Map.entry("port_rcv_data_64", new Mapping("legacy_data_received_bytes", "Data octets received, from counters_ext" + OCTETS, 4)),
            Map.entry("port_xmit_data_64", new Mapping("legacy_data_transmitted_bytes", "Data octets transmitted, from counters_ext" + OCTETS, 4)),
            Map.entry("port_rcv_packets_64", new Mapping("legacy_packets_received", "Packets received, from counters_ext", 1)),
            Map.entry("port_xmit_packets_64", new Mapping("legacy_packets_transmitted", "Packets transmitted, from counters_ext", 1)),
            Map.entry("port_unicast_rcv_packets", new Mapping("legacy_unicast_packets_received", "Unicast packets received, from counters_ext", 1)),
            Map.entry("port_unicast_xmit_packets", new Mapping("legacy_unicast_packets_transmitted", "Unicast packets transmitted, from counters_ext", 1)),
            Map.entry("port_multicast_rcv_packets", new Mapping("legacy_multicast_packets_received", "Multicast packets received, from counters_ext", 1)),
            Map.entry("port_multicast_xmit_packets", new Mapping("legacy_multicast_packets_transmitted", "Multicast packets transmitted, from counters_ext", 1)));

    /** mlx5 {@code hw_counters/}; files not listed here become {@code railyard_rdma_hw_events_total{counter="<file>"}}. */
    static final Map<String, Mapping> HARDWARE = Map.ofEntries(
            Map.entry("duplicate_request", new Mapping("duplicate_requests_packets", "Duplicate requests received (already executed)", 1)),
            Map.entry("implied_nak_seq_err", new Mapping("implied_nak_seq_errors", "Implied NAK sequence errors: an ACK PSN beyond the expected one", 1)),
            Map.entry("local_ack_timeout_err", new Mapping("local_ack_timeout_errors", "ACK timer expiries on the sender, still within the retry limit (recoverable)", 1)),
            Map.entry("np_cnp_sent", new Mapping("np_cnp_packets_sent", "CNPs sent as notification point after ECN-marked RoCE v2 packets", 1)),
            Map.entry("np_ecn_marked_roce_packets", new Mapping("np_ecn_marked_roce_packets_received", "ECN-marked (congestion experienced) RoCE v2 packets received", 1)),
            Map.entry("out_of_buffer", new Mapping("out_of_buffer_drops", "Packets dropped for lack of a receive work request", 1)),
            Map.entry("out_of_sequence", new Mapping("out_of_sequence_packets_received", "Out-of-sequence packets received: loss on the path", 1)),
            Map.entry("packet_seq_err", new Mapping("packet_sequence_errors", "NAK sequence errors received, within the retry limit", 1)),
            Map.entry("req_cqe_error", new Mapping("req_cqes_errors", "Requester completions with an error", 1)),
            Map.entry("req_cqe_flush_error", new Mapping("req_cqes_flush_errors", "Requester completions flushed with an error", 1)),
            Map.entry("req_remote_access_errors", new Mapping("req_remote_access_errors", "Remote access errors seen by the requester", 1)),
            Map.entry("req_remote_invalid_request", new Mapping("req_remote_invalid_request_errors", "Remote invalid-request errors seen by the requester", 1)),
            Map.entry("resp_cqe_error", new Mapping("resp_cqes_errors", "Responder completions with an error", 1)),
            Map.entry("resp_cqe_flush_error", new Mapping("resp_cqes_flush_errors", "Responder completions flushed with an error", 1)),
            Map.entry("resp_local_length_error", new Mapping("resp_local_length_errors", "Local length errors seen by the responder", 1)),
            Map.entry("resp_remote_access_errors", new Mapping("resp_remote_access_errors", "Remote access errors seen by the responder", 1)),
            Map.entry("rnr_nak_retry_err", new Mapping("rnr_nak_retry_packets_received", "Receiver-not-ready NAKs received", 1)),
            Map.entry("roce_adp_retrans", new Mapping("roce_adp_retransmits", "Adaptive retransmissions of RoCE traffic", 1)),
            Map.entry("roce_adp_retrans_to", new Mapping("roce_adp_retransmits_timeout", "Adaptive retransmission timeouts of RoCE traffic", 1)),
            Map.entry("roce_slow_restart", new Mapping("roce_slow_restart_used", "Times RoCE slow restart was used", 1)),
            Map.entry("roce_slow_restart_cnps", new Mapping("roce_slow_restart_cnps", "CNPs generated by RoCE slow restart", 1)),
            Map.entry("roce_slow_restart_trans", new Mapping("roce_slow_restart", "Times a QP entered the RoCE slow restart state", 1)),
            Map.entry("rp_cnp_handled", new Mapping("rp_cnp_packets_handled", "CNPs handled by the reaction point: rate reductions", 1)),
            Map.entry("rp_cnp_ignored", new Mapping("rp_cnp_ignored_packets_received", "CNPs ignored by the reaction point (should stay 0, else congestion control is off)", 1)),
            Map.entry("rx_atomic_requests", new Mapping("rx_atomic_requests", "Atomic requests received", 1)),
            Map.entry("rx_dct_connect", new Mapping("rx_dct_connect_requests", "DCT connect requests received", 1)),
            Map.entry("rx_icrc_encapsulated", new Mapping("rx_icrc_encapsulated_errors", "RoCE packets received with a bad ICRC", 1)),
            Map.entry("rx_read_requests", new Mapping("rx_read_requests", "RDMA read requests received", 1)),
            Map.entry("rx_write_requests", new Mapping("rx_write_requests", "RDMA write requests received", 1)),
            Map.entry("req_transport_retries_exceeded", new Mapping("req_transport_retries_exceeded",
                    "Requests that ran out of transport retries: fatal to the QP, NCCL's error 12 (RETRY_EXC_ERR)", 1)),
            Map.entry("req_rnr_retries_exceeded", new Mapping("req_rnr_retries_exceeded",
                    "Requests that ran out of receiver-not-ready retries: fatal to the QP, NCCL's error 13", 1)));

    private SysfsCounterNames() {}
}
