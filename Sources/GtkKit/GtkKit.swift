import CShim
