// Whether the side menu is open. Its drawer (src/ui/SideMenu.tsx) is loaded on first open, not with the first screen.
import { atom } from 'nanostores';

export const $sideMenuOpen = atom(false);
export const openSideMenu = () => $sideMenuOpen.set(true);
export const closeSideMenu = () => $sideMenuOpen.set(false);
