public enum TouristModel {}
