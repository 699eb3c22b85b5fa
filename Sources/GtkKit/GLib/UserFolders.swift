internal import CShim

/// The user's own folders, as their desktop names them (xdg-user-dirs).
public enum UserFolders {
    /// Where pictures go by default ("~/Pictures", or its translated name); nil when not set up.
    public static var pictures: String? { string(g_get_user_special_dir(G_USER_DIRECTORY_PICTURES)) }
}
