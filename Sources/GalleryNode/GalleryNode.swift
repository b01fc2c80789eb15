/// The running node: transport, connections, sync sessions and relay (see the `Transport` and
/// `Sync` folders).
public enum GalleryNode {}
