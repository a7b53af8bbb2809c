//! Names that stay unique across a cluster: a node's tag, and the ids of connections,
//! which carry their node's tag so that the node running an actor knows where each of
//! its members is, and can let go of them if that node dies.

/// A node's tag: random, 24 bits, never zero; a single server's is zero.
pub(crate) type NodeTag = u32;

/// Identifies one WebSocket connection for the life of the cluster.
pub(crate) type ConnId = u64;

/// How far up a connection id its node's tag sits.
const TAG_SHIFT: u32 = 40;

/// The node a connection is on: the high bits of its id (zero on a single server).
pub(crate) fn node_of(conn: ConnId) -> NodeTag {
    u32::try_from(conn >> TAG_SHIFT).unwrap_or(0)
}

/// The first id of node `tag`'s connections.
pub(crate) fn first_connection(tag: NodeTag) -> ConnId {
    (u64::from(tag) << TAG_SHIFT) + 1
}

/// Whether `id` can name an actor: claims are JetStream keys, which take letters,
/// digits, `-`, `_`, `=`, `.` and `/`, and subjects split at dots. Room ids always can;
/// a request for any other id is for no actor.
pub(crate) fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connection_ids_carry_their_node() {
        let first = first_connection(0xab_cdef);
        assert_eq!(node_of(first), 0xab_cdef);
        assert_eq!(node_of(first + 1_000_000), 0xab_cdef);
        assert_eq!(node_of(1), 0, "a single server's connections have no tag");
    }

    #[test]
    fn only_ids_a_claim_can_have_name_actors() {
        assert!(valid_id("0190a8f2-7c1e-7b3a-9f00-1234567890ab"));
        assert!(valid_id("0123456789abcdef0123"));
        assert!(!valid_id(""));
        assert!(!valid_id("a.b"));
        assert!(!valid_id("a*"));
        assert!(!valid_id(&"a".repeat(65)));
    }
}
