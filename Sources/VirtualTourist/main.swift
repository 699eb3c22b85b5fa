print("virtual-tourist")
